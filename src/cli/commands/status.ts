/** `projmirror status [--json]`: freshness, quota, plan and outbox, from the mirror alone. */
import { mirrorMayExist, openEmptyStore, openStore } from '../../store/open.js';
import type { CommandBody } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { mirrorLocation, withStoreOptions } from '../options.js';
import { gatherStatus } from '../status/gather.js';
import { renderStatus } from '../status/render.js';
import { VERSION } from '../version.js';

export const body: CommandBody = {
  builder: (yargs) =>
    withStoreOptions(yargs).option('json', {
      type: 'boolean',
      default: false,
      describe: 'print JSON',
    }),
  handler: async (args) => {
    const location = mirrorLocation(args);
    // No mirror yet is a state, not an error: show it empty (without creating the file).
    const exists = mirrorMayExist(location);
    if (!exists)
      process.stderr.write(`projmirror: no mirror at ${location.db} yet; run projmirror sync\n`);
    const store = exists ? await openStore(location, 'read') : await openEmptyStore();
    try {
      const report = await gatherStatus(store, Date.now());
      process.stdout.write(
        args['json']
          ? `${JSON.stringify({ version: VERSION, ...report }, null, 2)}\n`
          : `${renderStatus(report)}\n`,
      );
      return EXIT_OK;
    } finally {
      await store.close();
    }
  },
};
