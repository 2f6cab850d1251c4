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
}
