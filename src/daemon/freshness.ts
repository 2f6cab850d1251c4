/**
 * What the daemon knows of the mirror's freshness, per project, for the outbox's check before
 * sending (issue 21): a project's mirror is current while the realtime channel is connected and
 * a consistent pass that began after the (re)connect has passed it (the start-up reconcile, the
 * reconcile after a reconnect, or any later pass); events then keep it current. A disconnect
 * makes every project stale again; a hint (an event the daemon could not use, or could not
 * store) makes its project stale until its next pass. Without realtime nothing is ever current,
 * and the pusher reads each checked item's target again before checking it.
 */

/** Per-project freshness, fed by the realtime status, the passes and the hints. */
export class Freshness {
  private connectedAt: number | undefined;
  private readonly current = new Set<string>();

  /** The realtime channel connected (or reconnected) at `at`: nothing is current yet. */
  connected(at: number): void {
    this.connectedAt = at;
    this.current.clear();
  }

  /** The realtime channel is down: events may be missed from now on. */
  disconnected(): void {
    this.connectedAt = undefined;
    this.current.clear();
  }

  /** A consistent pass of `projectId` that began at `startedAt` passed. */
  passed(projectId: string, startedAt: number): void {
    if (this.connectedAt !== undefined && startedAt >= this.connectedAt) {
      this.current.add(projectId);
    }
  }

  /** Something may have changed that the mirror has not taken: `projectId`, or every project. */
  stale(projectId?: string): void {
    if (projectId === undefined) this.current.clear();
    else this.current.delete(projectId);
  }

  /** True when the mirror of `projectId` is current: a check needs no re-read. */
  isFresh(projectId: string): boolean {
    return this.connectedAt !== undefined && this.current.has(projectId);
  }
}
