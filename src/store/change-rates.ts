/**
 * `change_rates`: each polled item's change-rate evidence as JSON, kept across restarts. The
 * store keeps it opaque: the budget (`src/budget/change-rates.ts`) writes and validates it. On a
 * shared PostgreSQL mirror the rows are every daemon's, so a project that changes hands keeps its
 * estimate.
 */
import { connectionOf, type MirrorHandle } from './handle.js';

/** One item's kept evidence. */
export interface ChangeRateRow {
  key: string;
  state: unknown;
  /** When the item was last looked at (ms since the epoch). */
  lookedAt: number | undefined;
}

/** Reads and writes `change_rates`. */
export class ChangeRateRepository {
  private readonly allStmt;
  private readonly setStmt;
  private readonly deleteStmt;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.allStmt = db.prepare<[], { item: string; state: string; looked_at: string | null }>(
      'SELECT item, state, looked_at FROM change_rates ORDER BY item',
    );
    this.setStmt = db.prepare(
      `INSERT INTO change_rates (item, state, looked_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (item) DO UPDATE SET state = excluded.state, looked_at = excluded.looked_at,
         updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM change_rates WHERE item = ?');
  }

  /** Every item's evidence; a row whose state is not JSON is left out. */
  async all(): Promise<ChangeRateRow[]> {
    const rows = await this.allStmt.all();
    return rows.flatMap((row) => {
      try {
        const state: unknown = JSON.parse(row.state);
        const lookedAt = row.looked_at === null ? undefined : Date.parse(row.looked_at);
        return [{ key: row.item, state, lookedAt }];
      } catch {
        return [];
      }
    });
  }

  /** Saves the items' evidence, stamped `at`. */
  async save(rows: readonly ChangeRateRow[], at: string): Promise<void> {
    for (const row of rows) {
      const lookedAt = row.lookedAt === undefined ? null : new Date(row.lookedAt).toISOString();
      await this.setStmt.run(row.key, JSON.stringify(row.state), lookedAt, at);
    }
  }

  /** Forgets `keys` (projects gone from the mirror). */
  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await this.deleteStmt.run(key);
  }
}
