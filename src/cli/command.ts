/** The shape of one CLI command module. */
import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { ExitCode } from './exit.js';

/** A yargs command whose handler resolves to the process exit code. */
export interface CliCommand {
  command: string;
  describe: string;
  builder: (yargs: Argv) => Argv;
  handler: (args: ArgumentsCamelCase) => Promise<ExitCode>;
}
