/**
 * `projmirror outbox <action> [id]`: manage outbox items: list, retry ID, drop ID, and resolve ID
 * --keep-local|--keep-remote for an item in conflict.
 */
import { systemClock, UsageError } from '../../domain/index.js';
import {
  OUTBOX_STATES,
  type OutboxItem,
  type OutboxState,
  type OutboxSummary,
} from '../../outbox/index.js';
import { mirrorMayExist, openStore } from '../../store/open.js';
import type { Resolution, Store } from '../../store/port.js';
import type { CommandBody } from '../command.js';
import { EXIT_OK } from '../exit.js';
import { mirrorLocation, withStoreOptions } from '../options.js';

const ACTIONS = ['list', 'retry', 'drop', 'resolve'] as const;

/** What `outbox list` shows of a mirror that does not exist yet. */
const EMPTY_SUMMARY: OutboxSummary = {
  counts: { pending: 0, sending: 0, done: 0, failed: 0, conflict: 0, discarded: 0 },
  oldestPendingAt: null,
  oldestPendingAgeMs: null,
};

function parseJsonColumn(text: string | null): unknown {
  if (text === null || text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** An item as `outbox list --json` prints it: JSON columns parsed. */
export function itemJson(item: OutboxItem): Record<string, unknown> {
  return {
    ...item,
    body: parseJsonColumn(item.body),
    requestBody: parseJsonColumn(item.requestBody),
    result: parseJsonColumn(item.result),
    base: parseJsonColumn(item.base),
    conflict: parseJsonColumn(item.conflict),
  };
}

/** One line per item: id, state, op, project, target, attempts, queued at, last error. */
export function itemLine(item: OutboxItem): string {
  const fields = [
    String(item.id),
    item.state,
    item.op,
    item.projectId,
    item.targetId ?? '-',
    `attempts=${item.attempts}`,
    item.createdAt,
  ];
  if (item.nextAttemptAt !== null) fields.push(`next=${item.nextAttemptAt}`);
  if (item.lastError !== null) fields.push(`error=${JSON.stringify(item.lastError)}`);
  return fields.join('  ');
}

/** The closing line of `outbox list`: counts by state and the oldest pending item's age. */
export function summaryLine(summary: OutboxSummary): string {
  const counts = OUTBOX_STATES.map((state) => `${summary.counts[state]} ${state}`).join(', ');
  if (summary.oldestPendingAgeMs === null) return counts;
  return `${counts}; oldest pending queued ${Math.round(summary.oldestPendingAgeMs / 1000)} s ago`;
}

function parseId(value: unknown, action: string): number {
  const id = Number(value);
  if (value === undefined || !Number.isSafeInteger(id) || id <= 0) {
    throw new UsageError(`outbox ${action} needs an item id, not ${JSON.stringify(value ?? '')}`);
  }
  return id;
}

/** The resolution `resolve` was given: exactly one of --keep-local and --keep-remote. */
function resolutionOf(args: Record<string, unknown>): Resolution {
  const local = args['keep-local'] === true;
  const remote = args['keep-remote'] === true;
  if (local === remote) {
    throw new UsageError('outbox resolve needs exactly one of --keep-local and --keep-remote');
  }
  return local ? 'keep-local' : 'keep-remote';
}

async function list(store: Store, args: Record<string, unknown>): Promise<void> {
  const state = args['state'] as OutboxState | undefined;
  const { outbox } = store;
  const items = await outbox.list(state);
  if (args['json']) {
    process.stdout.write(`${JSON.stringify(items.map(itemJson))}\n`);
    return;
  }
  const lines = items.map(itemLine);
  lines.push(summaryLine(await outbox.summary(systemClock.now())));
  process.stdout.write(`${lines.join('\n')}\n`);
}

export const body: CommandBody = {
  builder: (yargs) =>
    withStoreOptions(yargs)
      .positional('action', { choices: ACTIONS, describe: 'what to do' })
      .positional('id', { type: 'string', describe: 'the item id (retry, drop, resolve)' })
      .option('keep-local', {
        type: 'boolean',
        describe: 'resolve: send the item as queued (its base becomes the present values)',
      })
      .option('keep-remote', {
        type: 'boolean',
        describe: "resolve: keep the service's values; the item is discarded, never sent",
      })
      .option('state', { choices: OUTBOX_STATES, describe: 'list only items in this state' })
      .option('json', { type: 'boolean', default: false, describe: 'list as one JSON array' }),
  handler: async (args) => {
    const action = String(args['action']);
    const id = action === 'list' ? 0 : parseId(args['id'], action);
    const resolution = action === 'resolve' ? resolutionOf(args) : undefined;
    const location = mirrorLocation(args);
    const file = location.db;
    // Nothing is created for a command about a mirror that does not exist.
    if (!mirrorMayExist(location)) {
      if (action !== 'list')
        throw new UsageError(`no outbox item ${id}: --db ${file} does not exist`);
      process.stdout.write(args['json'] ? '[]\n' : `${summaryLine(EMPTY_SUMMARY)}\n`);
      return EXIT_OK;
    }
    const store = await openStore(location, 'edit');
    try {
      if (action === 'list') {
        await list(store, args);
      } else if (resolution !== undefined) {
        const line = await store.outbox.resolve(id, resolution, systemClock.now());
        const state = resolution === 'keep-local' ? 'pending again' : 'discarded';
        process.stdout.write(`outbox item ${id} is ${state}: ${line}\n`);
      } else if (action === 'retry') {
        await store.outbox.retry(id, systemClock.now());
        process.stdout.write(`outbox item ${id} is pending again\n`);
      } else {
        await store.outbox.drop(id);
        process.stdout.write(`outbox item ${id} dropped\n`);
      }
      return EXIT_OK;
    } finally {
      await store.close();
    }
  },
};
