/** `projmirror status`: per project: task count, last consistent sync, staleness; quota; outbox counts */
import type { CliCommand } from '../command.js';
import { withStoreOptions } from '../options.js';
import { notLanded } from './not-landed.js';

export const statusCommand: CliCommand = {
  command: 'status',
  describe: 'per project: task count, last consistent sync, staleness; quota; outbox counts',
  builder: (yargs) => withStoreOptions(yargs),
  handler: () => notLanded('status'),
};
