/** `projmirror enqueue <op>`: add an outbox item locally, without network; prints its id and idempotency key */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const enqueueCommand: CliCommand = {
  command: 'enqueue <op>',
  describe: 'add an outbox item locally, without network; prints its id and idempotency key',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('enqueue'),
};
