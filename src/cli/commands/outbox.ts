/** `projmirror outbox <action> [id]`: manage outbox items: list, retry ID, drop ID */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const outboxCommand: CliCommand = {
  command: 'outbox <action> [id]',
  describe: 'manage outbox items: list, retry ID, drop ID',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('outbox'),
};
