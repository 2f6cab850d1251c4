/** A command whose capability has not landed yet: it says so and exits 2. */
import { UsageError } from '../../domain/index.js';
import type { ExitCode } from '../exit.js';

/** Throws the usage error of a command that is registered but not built yet. */
export function notLanded(command: string): Promise<ExitCode> {
  return Promise.reject(new UsageError(`'${command}' has not landed in this version yet`));
}
