/**
 * Secondary indexes of the tasks that a cold sync builds once instead of row by row: a backfill
 * that starts on a mirror holding no task drops them, and the next pass commit makes them again
 * from `schema.sql` (an index built over 100,000 rows costs a fraction of keeping it through
 * their inserts). Readers meanwhile get the same rows, scanned. SQLite only: PostgreSQL keeps
 * its indexes.
 */
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { schemaIndexSql } from './derived-objects.js';

/** The indexes a cold sync defers: none is used by the writes of a backfill. */
export const DEFERRED_INDEXES: readonly string[] = [
  'tasks_by_project',
  'tasks_open_by_end_date',
  'task_assignees_by_member',
];

/** Drops and makes again the deferred indexes, inside the caller's transaction. */
export class DeferredIndexes {
  private readonly db: Db;
  private readonly sqlite: boolean;
  private readonly missingStmt;
  private readonly anyTaskStmt;

  constructor(db: Db) {
    this.db = db;
    this.sqlite = dialectOf(db) === 'sqlite';
    const names = DEFERRED_INDEXES.map((name) => `'${name}'`).join(', ');
    this.missingStmt = this.sqlite
      ? db.prepare<[], number>(
          `SELECT ${DEFERRED_INDEXES.length} - count(*) FROM sqlite_master
           WHERE type = 'index' AND name IN (${names})`,
        )
      : undefined;
    this.anyTaskStmt = db.prepare('SELECT 1 FROM tasks LIMIT 1');
  }

  /** A backfill begins: on a mirror with no task, the indexes go until the commit. */
  async deferIfEmpty(): Promise<void> {
    if (!this.sqlite || (await this.anyTaskStmt.get()) !== undefined) return;
    for (const name of DEFERRED_INDEXES) await this.db.exec(`DROP INDEX IF EXISTS ${name}`);
  }

  /** A pass commits: any deferred index missing is built (a no-op read when none is). */
  async restore(): Promise<void> {
    if (this.missingStmt === undefined || (await this.missingStmt.pluck().get()) === 0) return;
    for (const name of DEFERRED_INDEXES) {
      await this.db.exec(
        schemaIndexSql(name).replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '),
      );
    }
  }
}
