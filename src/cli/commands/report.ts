/** `projmirror report`: project progress and overdue tasks from the mirror alone */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const reportCommand: CliCommand = {
  command: 'report',
  describe: 'project progress and overdue tasks from the mirror alone',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('report'),
};
