/** `projmirror simulate`: the bundled simulator of the service */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const simulateCommand: CliCommand = {
  command: 'simulate',
  describe: 'the bundled simulator of the service',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('simulate'),
};
