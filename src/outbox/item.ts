/** One outbox row as the code sees it (the table and its statements live in `store/outbox.ts`). */
import type { Db } from '../store/database.js';
import { OutboxRepository, type OutboxItem, type OutboxState } from '../store/outbox.js';

export {
  OUTBOX_STATES,
  type OutboxItem,
  type OutboxState,
  type OutboxSummary,
} from '../store/outbox.js';

/** Items in queue order, optionally of one state, for callers holding only a connection. */
export function listOutbox(
  db: Db,
  filter: { state?: OutboxState; limit?: number } = {},
): OutboxItem[] {
  return new OutboxRepository(db).list(filter);
}
