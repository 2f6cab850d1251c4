/**
 * Group commit of realtime events: an event that arrives while the store is writing others waits
 * for that write, then goes with every event that waited beside it in one transaction (at most
 * `EVENT_BATCH_MAX`). An event that arrives alone is written at once, so the wait is never more
 * than the write in flight; a burst costs one transaction, and one copy of the pages its events
 * share in the write-ahead log, instead of one per event.
 */
import { MalformedResponseError, type CheckedEvent } from '../domain/index.js';
import type { ApplyOutcome, EventOutcome } from '../store/port.js';

/** The most events one transaction takes. */
export const EVENT_BATCH_MAX = 200;

/** One event waiting, and its caller's promise. */
interface Waiting {
  event: CheckedEvent;
  resolve: (outcome: ApplyOutcome) => void;
  reject: (error: unknown) => void;
}

/** Writes events through `write`, those that arrive during a write together. */
export class EventBatch {
  private readonly write: (events: readonly CheckedEvent[]) => Promise<EventOutcome[]>;
  private readonly max: number;
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(
    write: (events: readonly CheckedEvent[]) => Promise<EventOutcome[]>,
    max = EVENT_BATCH_MAX,
  ) {
    this.write = write;
    this.max = max;
  }

  /**
   * Writes `event` (checked already: `checkEvent`, with those it waited beside); its outcome.
   * Rejects with a `MalformedResponseError` when the store refused it as malformed (a change of
   * another project), or with the store's error when the transaction failed (then every event of
   * it failed).
   */
  apply(event: CheckedEvent): Promise<ApplyOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ event, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.max);
        try {
          const outcomes = await this.write(batch.map(({ event }) => event));
          batch.forEach(({ event, resolve, reject }, i) => {
            const outcome = outcomes[i] ?? 'unchanged';
            if (typeof outcome === 'string') resolve(outcome);
            else reject(malformed(event, outcome.malformed));
          });
        } catch (error) {
          for (const { reject } of batch) reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

function malformed(event: CheckedEvent, problem: string): MalformedResponseError {
  return new MalformedResponseError(
    { route: `event ${event.type}`, projectId: event.projectId },
    problem,
  );
}
