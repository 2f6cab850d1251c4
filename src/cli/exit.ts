/** Process exit codes (contract section 2). */
export type ExitCode = 0 | 1 | 2;

export const EXIT_OK = 0;
/** Some project or item did not finish. */
export const EXIT_FAILED = 1;
/** A usage or configuration error, always with a message naming the bad value. */
export const EXIT_USAGE = 2;
