/** The `projmirror` command line: one yargs instance, one module per command under `commands/`. */
import yargs from 'yargs';
import { errorLine, UsageError } from '../domain/index.js';
import { commandName } from './command.js';
import { commands } from './commands/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, ExitError, type ExitCode } from './exit.js';
import { refuseInternalOptions, refuseTokenFlag } from './options.js';
import { VERSION } from './version.js';

/** Runs the CLI with `argv` (without node and script) and sets `process.exitCode`. */
export async function main(argv: string[]): Promise<void> {
  endQuietlyOnClosedStdout();
  process.exitCode = await runCli(argv);
}

/**
 * `projmirror report | head -1`: once the reader has gone, the rest of the output has nowhere to
 * go; end at once, without a word (as a command killed by SIGPIPE would).
 */
function endQuietlyOnClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_OK);
    throw error;
  });
}

/**
 * yargs names an unknown `PROJMIRROR_*` variable by the option it would set (`bogus`): name it
 * as the user wrote it, and each unknown flag as given (`--bogus`).
 */
export function namedAsWritten(
  message: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown === null) return message;
  const camel = (text: string) =>
    text.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const variables = Object.keys(env).filter((key) => key.startsWith(ENV_PREFIX));
  // yargs lists an unknown `--foo-bar` twice, as `foo-bar` and `fooBar`: once is enough.
  const given = new Map<string, string>();
  for (const name of unknown[1]!.split(', ')) {
    if (!given.has(camel(name))) given.set(camel(name), name);
  }
  const names = [...given.values()].map((name) => {
    const flag = argv.find((word) => word === `--${name}` || word.startsWith(`--${name}=`));
    if (flag !== undefined) return `--${name}`;
    const variable = variables.find(
      (key) => camel(key.slice(ENV_PREFIX.length).toLowerCase()) === camel(name),
    );
    return variable ?? name;
  });
  const variable = names.every((name) => name.startsWith(ENV_PREFIX));
  const kind = variable ? 'environment variable' : 'option';
  return `unknown ${kind}${names.length > 1 ? 's' : ''}: ${names.join(', ')}`;
}

/** The prefix of the environment variables every option reads. */
const ENV_PREFIX = 'PROJMIRROR_';

/** Runs the CLI and resolves to the exit code, printing errors as one line on stderr. */
export async function runCli(argv: string[]): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT_OK;
  const parser = yargs(argv)
    .scriptName('projmirror')
    .usage('$0 <command> [options]\n\nMirror a project-scheduling service into one SQLite file.')
    .env('PROJMIRROR')
    .strictCommands()
    .strictOptions()
    .demandCommand(1, 'Name a command; see projmirror --help.')
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version(VERSION)
    // On a terminal, lines fit its width (100 at most); in a pipe none is broken, so that an
    // example can be copied (or grepped) whole.
    .wrap(process.stdout.isTTY ? Math.min(100, process.stdout.columns ?? 100) : null)
    .fail((message, error) => {
      // yargs' own errors (YError), its config file reader's included, are usage errors.
      if (error !== undefined && error !== null && error.name !== 'YError') throw error;
      const text = message ?? error?.message ?? 'usage error';
      throw new UsageError(namedAsWritten(text.replace(/\s*\n\s*/g, ' '), argv));
    });
  try {
    refuseTokenFlag(argv);
    refuseInternalOptions(argv);
    // Only a command the line names is loaded (any word of it: an option's value may come
    // first); the others are listed for --help and for "did you mean".
    const words = new Set(argv);
    for (const listed of commands) {
      const { command, describe } = listed;
      if (!words.has(commandName(listed))) {
        parser.command(command, describe);
        continue;
      }
      const body = await listed.load();
      parser.command({
        command,
        describe,
        builder: body.builder,
        handler: async (args) => {
          exitCode = await body.handler(args);
        },
      });
    }
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    process.stderr.write(`projmirror: ${errorLine(error)}\n`);
    if (error instanceof UsageError) return EXIT_USAGE;
    if (error instanceof ExitError) return error.exitCode;
    return EXIT_FAILED;
  }
}
