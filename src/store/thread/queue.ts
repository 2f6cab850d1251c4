/**
 * The one line of work on a connection: units of work, and the leases' heartbeats, run one at a
 * time in the order asked, each to its end (its transaction committed or rolled back) before the
 * next begins. A connection's statements are asynchronous; this is what keeps two transactions
 * from interleaving on it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything asked before it; its answer, or its error. */
  run<T>(work: () => Promise<T> | T): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Settles once everything asked so far has run. */
  async drained(): Promise<void> {
    await this.tail;
  }
}
