/** The demo's example queries, run where the connection is. */
import type { Db } from '../store/db.js';

/** Runs read-only example queries over one connection. */
export class ExampleUnits {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /** The column names and rows (as arrays) of `sql`. */
  rows(sql: string): { columns: string[]; rows: unknown[][] } {
    const statement = this.db.prepare(sql);
    const columns = statement.columns().map((column) => column.name);
    return { columns, rows: statement.raw().all() as unknown[][] };
  }
}
