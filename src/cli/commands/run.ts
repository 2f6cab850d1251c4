/** `projmirror run`: the daemon: initial sync, realtime, budgeted polling, outbox pushing, reconcile */
import type { CliCommand } from '../command.js';
import { withRemoteOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const runCommand: CliCommand = {
  command: 'run',
  describe: 'the daemon: initial sync, realtime, budgeted polling, outbox pushing, reconcile',
  builder: (yargs) => withRemoteOptions(yargs),
  handler: () => notLanded('run'),
};
