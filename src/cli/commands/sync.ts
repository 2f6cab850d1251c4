/** `projmirror sync`: one full, consistent pass over every project, then exit */
import type { CliCommand } from '../command.js';
import { withRemoteOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const syncCommand: CliCommand = {
  command: 'sync',
  describe: 'one full, consistent pass over every project, then exit',
  builder: (yargs) => withRemoteOptions(yargs),
  handler: () => notLanded('sync'),
};
