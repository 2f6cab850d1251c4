/** One outbox row as the code sees it (the table and its statements live in `store/outbox.ts`). */

export {
  OUTBOX_STATES,
  type OutboxItem,
  type OutboxState,
  type OutboxSummary,
} from '../store/port.js';
