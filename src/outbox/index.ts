/**
 * The outbox's engine on the main thread: the push loop that sends each edit exactly once. The
 * queue's transitions, its conflict check and the dry run run on the store thread
 * (`src/store/outbox-queue/`); the ops are the domain's (`src/domain/outbox-ops.ts`).
 */
export * from './item.js';
export * from './pusher.js';
export * from './retries.js';
export type { DryRunStep } from '../store/port.js';
export {
  MIN_RATE_LIMIT_WAIT_MS,
  ON_CONFLICT_CHOICES,
  type DiskReports,
  type OnConflict,
} from './send.js';
