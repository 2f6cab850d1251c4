/** `projmirror version`: the version of this installation, as `projmirror --version` prints it. */
import type { CommandBody } from '../command.js';
import { withCommonOptions } from '../common-options.js';
import { EXIT_OK } from '../exit.js';
import { VERSION } from '../version.js';

export const body: CommandBody = {
  builder: (yargs) => withCommonOptions(yargs, []),
  handler: () => {
    process.stdout.write(`${VERSION}\n`);
    return Promise.resolve(EXIT_OK);
  },
};
