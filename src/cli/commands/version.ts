/** `projmirror version`: the version of this installation, as `projmirror --version` prints it. */
import type { CliCommand } from '../command.js';
import { withCommonOptions } from '../common-options.js';
import { EXIT_OK } from '../exit.js';
import { VERSION } from '../version.js';

export const versionCommand: CliCommand = {
  command: 'version',
  describe: 'print the version',
  builder: (yargs) => withCommonOptions(yargs, []),
  handler: () => {
    process.stdout.write(`${VERSION}\n`);
    return Promise.resolve(EXIT_OK);
  },
};
