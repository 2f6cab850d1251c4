/** What every mirror write is stamped with, and the tally it adds to. */
import type { FieldCatalog } from './data-fields.js';

/** Counts of what a batch of writes changed. */
export interface WriteTally {
  /** Mirrored records (projects, tasks, members, resources, dependencies) inserted, updated or deleted. */
  rows: number;
  /** `task_history` rows appended. */
  history: number;
  /**
   * When present, the service's `updatedAt` (ms) of each task written over or added (not in a
   * backfill), for the observed-staleness histogram; at most `MAX_CHANGED_AT` of them.
   */
  changedAt?: number[];
}

/** The most `updatedAt`s a tally keeps (a pass that rewrites a huge project samples its first). */
export const MAX_CHANGED_AT = 10_000;

/** Notes the `updatedAt` of a task just written, when the tally collects them. */
export function noteChangedAt(tally: WriteTally, updatedAt: unknown): void {
  if (tally.changedAt === undefined || tally.changedAt.length >= MAX_CHANGED_AT) return;
  const at = typeof updatedAt === 'string' ? Date.parse(updatedAt) : NaN;
  if (Number.isFinite(at)) tally.changedAt.push(at);
}

/** The time written into `synced_at` and `observed_at`, whether to record task history, and the tally. */
export interface WriteContext {
  /** ISO-8601 UTC time of the write. */
  at: string;
  /** False while a project has no baseline yet (its first full pass): no history is recorded. */
  history: boolean;
  tally: WriteTally;
  /** Where the fields of the records written are noted (the wide views' columns). */
  fields: FieldCatalog;
}

/** A tally at zero. */
export function newTally(): WriteTally {
  return { rows: 0, history: 0 };
}
