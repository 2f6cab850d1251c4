/** The `projmirror` command line: one yargs instance, one module per command under `commands/`. */
import yargs from 'yargs';
import { errorLine, UsageError } from '../domain/index.js';
import { commands } from './commands/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, ExitError, type ExitCode } from './exit.js';
import { refuseTokenFlag } from './options.js';
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
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .fail((message, error) => {
      // yargs' own errors (YError), its config file reader's included, are usage errors.
      if (error !== undefined && error !== null && error.name !== 'YError') throw error;
      const text = message ?? error?.message ?? 'usage error';
      throw new UsageError(text.replace(/\s*\n\s*/g, ' '));
    });
  for (const command of commands) {
    parser.command({
      ...command,
      handler: async (args) => {
        exitCode = await command.handler(args);
      },
    });
  }
  try {
    refuseTokenFlag(argv);
    await parser.parseAsync();
    return exitCode;
  } catch (error) {
    process.stderr.write(`projmirror: ${errorLine(error)}\n`);
    if (error instanceof UsageError) return EXIT_USAGE;
    if (error instanceof ExitError) return error.exitCode;
    return EXIT_FAILED;
  }
}
