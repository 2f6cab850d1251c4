/**
 * The staleness the mirror actually showed: for each change written into it that carries the
 * service's `updatedAt` (a task), the time from that instant to the write, told to listeners
 * (`/metrics`' `projmirror_change_staleness_seconds`). Changes the mirror learns of by a pass, an
 * event or a fetched record count alike; an outbox answer is our own edit and does not count.
 */
import type { Clock } from '../domain/index.js';
import type { ProjectSyncResult } from '../mirror/index.js';

/** Told the staleness of one change written, in ms. */
export type StalenessListener = (ms: number) => void;

/** Turns the `updatedAt` of written changes into observed staleness. */
export class ObservedStaleness {
  private readonly listeners = new Set<StalenessListener>();
  /** Passes heard: a poll and a refresh that joined one pass share its result. */
  private readonly heard = new WeakSet<ProjectSyncResult>();

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** Adds a listener; it hears every change written from now on. */
  listen(listener: StalenessListener): void {
    this.listeners.add(listener);
  }

  /** A record just written: its staleness, when it says when it changed. */
  written(record: unknown): void {
    if (typeof record !== 'object' || record === null) return;
    this.changedAt((record as { updatedAt?: unknown }).updatedAt);
  }

  /** A change made at `updatedAt` (the service's ISO time), written just now. */
  changedAt(updatedAt: unknown): void {
    if (typeof updatedAt === 'string') this.changedAtMs(Date.parse(updatedAt));
  }

  /** The tasks a pass changed or added, each made at its `changedAt` (ms); a pass is heard once. */
  passed(result: ProjectSyncResult): void {
    if (this.heard.has(result)) return;
    this.heard.add(result);
    for (const at of result.changedAt ?? []) this.changedAtMs(at);
  }

  /** The tasks a single-page poll wrote, each made at its `changedAt` (ms). */
  polled(changedAt: readonly number[]): void {
    for (const at of changedAt) this.changedAtMs(at);
  }

  private changedAtMs(at: number): void {
    if (this.listeners.size === 0 || !Number.isFinite(at)) return;
    // A service clock ahead of ours reads as no wait, not a negative one.
    const ms = Math.max(0, this.clock.now() - at);
    for (const listener of this.listeners) listener(ms);
  }
}
