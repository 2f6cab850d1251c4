/** `projmirror push`: send every pending outbox item once, then exit */
import type { CliCommand } from '../command.js';
import { withRemoteOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const pushCommand: CliCommand = {
  command: 'push',
  describe: 'send every pending outbox item once, then exit',
  builder: (yargs) => withRemoteOptions(yargs),
  handler: () => notLanded('push'),
};
