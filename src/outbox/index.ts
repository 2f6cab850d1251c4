/** The outbox: the queue of local edits and the engine that pushes them exactly once. */
export * from './apply.js';
export * from './item.js';
export * from './ops.js';
export * from './pusher.js';
export * from './queue.js';
export * from './retries.js';
export * from './conflict.js';
export * from './dry-run.js';
export {
  MIN_RATE_LIMIT_WAIT_MS,
  ON_CONFLICT_CHOICES,
  type DiskReports,
  type OnConflict,
} from './send.js';
