/** `projmirror demo`: start the simulator with sample data, sync it into ./demo.sqlite, push edits, show queries */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const demoCommand: CliCommand = {
  command: 'demo',
  describe:
    'start the simulator with sample data, sync it into ./demo.sqlite, push edits, show queries',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('demo'),
};
