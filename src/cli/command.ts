/** The shape of one CLI command: how `--help` lists it, and its module. */
import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { ExitCode } from './exit.js';

/** What a command's module gives: its options, and a handler resolving to the exit code. */
export interface CommandBody {
  builder: (yargs: Argv) => Argv;
  handler: (args: ArgumentsCamelCase) => Promise<ExitCode>;
}

/** A command as the CLI lists it; its module is loaded (`load`) only when it runs or shows help. */
export interface ListedCommand {
  /** The yargs command, with its positionals (`enqueue <op>`). */
  command: string;
  describe: string;
  load: () => Promise<CommandBody>;
}

/** The name that invokes `listed` (`enqueue`). */
export function commandName(listed: ListedCommand): string {
  return listed.command.split(' ')[0]!;
}
