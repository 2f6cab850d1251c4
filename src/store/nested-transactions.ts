/**
 * Transactions as both connections nest them: the outermost begins and commits, one inside it
 * is a savepoint, and a failure rolls back only its own part. The engines differ only in how a
 * statement of their own runs and how a transaction begins.
 */

/** The transactions of one connection. */
export class NestedTransactions {
  private readonly exec: (sql: string) => Promise<void>;
  private readonly beforeCommit: (() => Promise<void>) | undefined;
  private readonly afterBegin: (() => Promise<void>) | undefined;
  private depth = 0;
  private savepoints = 0;

  /**
   * Over `exec`, which runs a statement on the connection; `beforeCommit` runs inside the
   * outermost transaction just before it commits, and `afterBegin` as its first step.
   */
  constructor(
    exec: (sql: string) => Promise<void>,
    beforeCommit?: () => Promise<void>,
    afterBegin?: () => Promise<void>,
  ) {
    this.exec = exec;
    this.beforeCommit = beforeCommit;
    this.afterBegin = afterBegin;
  }

  /** True inside a transaction. */
  get active(): boolean {
    return this.depth > 0;
  }

  /**
   * Runs `work` in a transaction begun with `begin`, or in a savepoint inside the one in hand:
   * committed (released) when it resolves, rolled back when it rejects.
   */
  async run<T>(work: () => Promise<T>, begin: string): Promise<T> {
    const nested = this.depth > 0;
    const name = `pm_${(this.savepoints += 1)}`;
    await this.exec(nested ? `SAVEPOINT ${name}` : begin);
    this.depth += 1;
    try {
      if (!nested && this.afterBegin !== undefined) await this.afterBegin();
      const result = await work();
      if (!nested && this.beforeCommit !== undefined) await this.beforeCommit();
      await this.exec(nested ? `RELEASE SAVEPOINT ${name}` : 'COMMIT');
      return result;
    } catch (error) {
      await this.rollback(nested ? `ROLLBACK TO SAVEPOINT ${name}` : 'ROLLBACK');
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  /**
   * Rolls back; a rollback that fails too (the connection lost, or a transaction SQLite ended
   * itself on the error) leaves the first error to tell.
   */
  private async rollback(sql: string): Promise<void> {
    try {
      await this.exec(sql);
    } catch {
      // The transaction is gone either way; the caller rethrows what made it fail.
    }
  }
}
