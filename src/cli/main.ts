/** The `projmirror` command line: one yargs instance, one module per command under `commands/`. */
import yargs from 'yargs';
import { errorLine, UsageError } from '../domain/index.js';
import { commands } from './commands/index.js';
import { EXIT_USAGE, ExitCode } from './exit.js';
import { refuseTokenFlag } from './options.js';

/** Runs the CLI with `argv` (without node and script) and sets `process.exitCode`. */
export async function main(argv: string[]): Promise<void> {
  process.exitCode = await runCli(argv);
}

/** Runs the CLI and resolves to the exit code, printing errors as one line on stderr. */
export async function runCli(argv: string[]): Promise<ExitCode> {
  let exitCode: ExitCode = 0;
  const parser = yargs(argv)
    .scriptName('projmirror')
    .usage('$0 <command> [options]\n\nMirror a project-scheduling service into one SQLite file.')
    .env('PROJMIRROR')
    .config('config', 'JSON config file (flags, then environment, then this file, then defaults)')
    .strictCommands()
    .strictOptions()
    .demandCommand(1, 'Name a command; see projmirror --help.')
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version(false)
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .fail((message, error) => {
      throw error ?? new UsageError(message);
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
    return 1;
  }
}
