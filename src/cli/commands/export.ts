/** `projmirror export`: write each reporting view as a CSV or JSON file */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const exportCommand: CliCommand = {
  command: 'export',
  describe: 'write each reporting view as a CSV or JSON file',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('export'),
};
