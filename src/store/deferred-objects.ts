/**
 * What a cold sync builds once instead of row by row: the secondary indexes of the tasks, and the
 * trigger that adds an inserted task to the full-text index. A backfill that starts on a mirror
 * holding no task drops them, and the next pass commit makes them again from `schema.sql` (an
 * index built over 100,000 rows costs a fraction of keeping it through their inserts; the
 * trigger, which only finds for each row that its backfill is under way, cost 0.1 s of them).
 * Readers meanwhile get the same rows, scanned. Nothing is lost to the full-text index: the only
 * projects whose tasks are written until that commit are those being backfilled (the mirror held
 * no task), whose tasks the index takes when their backfill completes, by schema.sql's trigger on
 * `sync_state`. SQLite only: PostgreSQL keeps its indexes and has no such trigger.
 */
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { schemaObjectSql } from './derived-objects.js';

/** The indexes a cold sync defers: none is used by the writes of a backfill. */
export const DEFERRED_INDEXES: readonly string[] = [
  'tasks_by_project',
  'tasks_open_by_end_date',
  'task_assignees_by_member',
];

/** The triggers a cold sync defers: none would do anything for the rows of a backfill. */
export const DEFERRED_TRIGGERS: readonly string[] = ['tasks_fts_after_insert'];

const DEFERRED = [
  ...DEFERRED_INDEXES.map((name) => ({ type: 'index', name })),
  ...DEFERRED_TRIGGERS.map((name) => ({ type: 'trigger', name })),
];

/** Drops and makes again the deferred objects, inside the caller's transaction. */
export class DeferredObjects {
  private readonly db: Db;
  private readonly sqlite: boolean;
  private readonly missingStmt;
  private readonly anyTaskStmt;

  constructor(db: Db) {
    this.db = db;
    this.sqlite = dialectOf(db) === 'sqlite';
    const names = DEFERRED.map(({ name }) => `'${name}'`).join(', ');
    this.missingStmt = this.sqlite
      ? db.prepare<[], number>(
          `SELECT ${DEFERRED.length} - count(*) FROM sqlite_master
           WHERE type IN ('index', 'trigger') AND name IN (${names})`,
        )
      : undefined;
    this.anyTaskStmt = db.prepare('SELECT 1 FROM tasks LIMIT 1');
  }

  /** A backfill begins: on a mirror with no task, the objects go until the commit. */
  async deferIfEmpty(): Promise<void> {
    if (!this.sqlite || (await this.anyTaskStmt.get()) !== undefined) return;
    for (const { type, name } of DEFERRED) {
      await this.db.exec(`DROP ${type.toUpperCase()} IF EXISTS ${name}`);
    }
  }

  /** A pass commits: any deferred object missing is made (a no-op read when none is). */
  async restore(): Promise<void> {
    if (this.missingStmt === undefined || (await this.missingStmt.pluck().get()) === 0) return;
    for (const { type, name } of DEFERRED) {
      const create = new RegExp(`^CREATE ${type.toUpperCase()} `);
      const sql = schemaObjectSql(type, name);
      await this.db.exec(sql.replace(create, `CREATE ${type.toUpperCase()} IF NOT EXISTS `));
    }
  }
}
