/** Process exit codes (contract section 2); the unit's `RestartPreventExitStatus=` lists 2 and 3. */
import { ProjmirrorError } from '../domain/index.js';

/** The code a command ends with. */
export type ExitCode = 0 | 1 | 2 | 3 | 4;

export const EXIT_OK = 0;
/** Some project or item did not finish. */
export const EXIT_FAILED = 1;
/** A usage or configuration error, always with a message naming the bad value. */
export const EXIT_USAGE = 2;
/** `run`: the service has refused the token on every request for `--token-refused-minutes`. */
export const EXIT_TOKEN_REFUSED = 3;
/** `changes`: the cursor is below what retention has pruned (contract section 8). */
export const EXIT_CURSOR_EXPIRED = 4;

/** An error that ends the process with its own exit code, after its one-line message. */
export class ExitError extends ProjmirrorError {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(`exit_${exitCode}`, message);
  }
}
