/** What the apply paths wrote while a pass of the same project was in flight. */
import type { RecordKind } from '../store/project-records.js';

/**
 * Written by an event during a pass: the pass's copy of these may be older (read before the
 * event), so its commit neither overwrites nor deletes them; the next pass settles them.
 */
export class PassGuard {
  readonly tasks = new Set<string>();
  readonly lists = new Set<RecordKind>();
  project = false;
  /**
   * An event created or deleted a task of the project during the attempt in hand: rows may have
   * shifted between pages without the total changing, so the attempt is read again once.
   */
  shifted = false;
}
