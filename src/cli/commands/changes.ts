/**
 * `projmirror changes [--since SEQ] [--limit N] [--follow]`: the change feed after a cursor, as
 * NDJSON on standard output, from the mirror alone (contract section 8, docs/changes.md).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../../domain/index.js';
import { openStore } from '../../store/open.js';
import { changeLine, type ChangesPort } from '../../store/port.js';
import type { CommandBody } from '../command.js';
import { EXIT_CURSOR_EXPIRED, EXIT_OK, ExitError } from '../exit.js';
import { abortOnSignals } from '../interrupt.js';
import { mirrorLocation, withStoreOptions } from '../options.js';
import { writePiecesToStdout } from '../stdio.js';

/** Changes read from the mirror per query. */
export const CHANGES_PAGE_ROWS = 1_000;

/** How often `--follow` asks the mirror for new changes, in ms. */
export const FOLLOW_POLL_MS = 500;

export const body: CommandBody = {
  builder: (yargs) =>
    withStoreOptions(yargs)
      .option('since', {
        type: 'number',
        default: 0,
        describe: 'print the changes after this seq (the last one the consumer has applied)',
      })
      .option('limit', { type: 'number', describe: 'print at most this many changes' })
      .option('follow', {
        type: 'boolean',
        default: false,
        describe: 'keep printing new changes until SIGINT, SIGTERM or a closed pipe',
      })
      .example('$0 changes --since 0 --limit 100', 'the first 100 changes kept')
      .example('$0 changes --since 4711 --follow', 'every change after 4711, then each new one'),
  handler: async (args) => {
    const since = wholeNumber(args['since'], '--since', 0, 'a seq, 0 or more');
    const limit =
      args['limit'] === undefined
        ? Number.POSITIVE_INFINITY
        : wholeNumber(args['limit'], '--limit', 1, 'a whole number of changes, 1 or more');
    const follow = args['follow'] === true;
    const location = mirrorLocation(args);
    const store = await openStore(location, 'read');
    const interrupt = follow ? abortOnSignals() : undefined;
    try {
      const feed = store.changes;
      await feed.check(location.db);
      let cursor = since;
      let left = limit;
      for (;;) {
        await checkCursor(feed, cursor);
        for (;;) {
          const rows = await feed.after(cursor, Math.min(left, CHANGES_PAGE_ROWS));
          if (rows.length === 0) break;
          await writePiecesToStdout(rows.map(changeLine));
          cursor = rows[rows.length - 1]!.seq;
          left -= rows.length;
          if (left <= 0) return EXIT_OK;
        }
        if (interrupt === undefined || interrupt.signal.aborted) return EXIT_OK;
        try {
          await sleep(FOLLOW_POLL_MS, undefined, { signal: interrupt.signal });
        } catch {
          return EXIT_OK;
        }
      }
    } finally {
      interrupt?.dispose();
      await store.close();
    }
  },
};

/** Exit 4 when retention has pruned changes after `cursor`: it would miss them. */
async function checkCursor(feed: ChangesPort, cursor: number): Promise<void> {
  const pruned = await feed.prunedThrough();
  if (cursor >= pruned) return;
  const oldest = await feed.oldestKept();
  const kept =
    oldest === undefined
      ? `no change is kept after seq ${pruned}`
      : `the oldest change kept is seq ${oldest}`;
  throw new ExitError(
    EXIT_CURSOR_EXPIRED,
    `--since ${cursor} is older than the changes retention kept (${kept}): re-read the tables, then continue with --since ${pruned}`,
  );
}

/** A whole number option at least `min`; a usage error naming it otherwise. */
function wholeNumber(value: unknown, flag: string, min: number, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${flag} ${String(value)} must be ${what}`);
  }
  return value;
}
