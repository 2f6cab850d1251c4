/** What the other write paths wrote while a pass of the same project was in flight. */
import type { RecordKind } from '../project-records.js';

/**
 * The records an event, a fetched record or an outbox answer wrote (or deleted) during a pass:
 * the pass's copy of exactly these may be older (read before the write), so its commit neither
 * overwrites nor deletes them, and replaces everything else; the next pass settles them.
 */
export class PassGuard {
  readonly tasks = new Set<string>();
  readonly lists: Readonly<Record<RecordKind, Set<string>>> = {
    members: new Set(),
    resources: new Set(),
    dependencies: new Set(),
  };
  project = false;
  /**
   * A write created or deleted a task of the project during the attempt in hand: rows may have
   * shifted between pages without the total changing, so the attempt is read again once.
   */
  shifted = false;
}
