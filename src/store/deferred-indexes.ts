/**
 * Secondary indexes of the tasks that a cold sync builds once instead of row by row: a backfill
 * that starts on a mirror holding no task drops them, and the next pass commit makes them again
 * from the schema (an index built over 100,000 rows costs a fraction of keeping it through their
 * inserts). Readers meanwhile get the same rows, scanned. On PostgreSQL the full-text index (a
 * GIN index there; SQLite's FTS5 index is filled once at the backfill's end by its own rule) is
 * deferred too. A mirror holding no task means no task of any project: on a PostgreSQL mirror
 * several daemons share, only the first backfill of an empty database defers, and whichever pass
 * commits first builds them again.
 */
import type { Db } from './database.js';
import { readSchema } from './database.js';
import { dialectOf } from './db.js';
import { schemaIndexSql } from './derived-objects.js';
import { PG_SCHEMA_FILE } from './postgres/open.js';

/** The indexes a cold sync defers: none is used by the writes of a backfill. */
export const DEFERRED_INDEXES: readonly string[] = [
  'tasks_by_project',
  'tasks_open_by_end_date',
  'task_assignees_by_member',
];

/** PostgreSQL defers its full-text index too (`schema.pg.sql`). */
export const PG_DEFERRED_INDEXES: readonly string[] = [...DEFERRED_INDEXES, 'tasks_fts'];

/** Drops and makes again the deferred indexes, inside the caller's transaction. */
export class DeferredIndexes {
  private readonly db: Db;
  private readonly names: readonly string[];
  private readonly createSql: (name: string) => string;
  private readonly missingStmt;
  private readonly anyTaskStmt;

  constructor(db: Db) {
    this.db = db;
    const sqlite = dialectOf(db) === 'sqlite';
    this.names = sqlite ? DEFERRED_INDEXES : PG_DEFERRED_INDEXES;
    this.createSql = sqlite ? schemaIndexSql : pgSchemaIndexSql;
    const names = this.names.map((name) => `'${name}'`).join(', ');
    this.missingStmt = db.prepare<[], number>(
      sqlite
        ? `SELECT ${this.names.length} - count(*) FROM sqlite_master
           WHERE type = 'index' AND name IN (${names})`
        : `SELECT ${this.names.length} - count(*) FROM pg_indexes
           WHERE schemaname = current_schema() AND indexname IN (${names})`,
    );
    this.anyTaskStmt = db.prepare('SELECT 1 FROM tasks LIMIT 1');
  }

  /** A backfill begins: on a mirror with no task, the indexes go until the commit. */
  deferIfEmpty(): void {
    if (this.anyTaskStmt.get() !== undefined) return;
    for (const name of this.names) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
  }

  /** A pass commits: any deferred index missing is built (a no-op read when none is). */
  restore(): void {
    if (this.missingStmt.pluck().get() === 0) return;
    for (const name of this.names) {
      this.db.exec(this.createSql(name).replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '));
    }
  }
}

let pgIndexSql: Map<string, string> | undefined;

/** The `CREATE INDEX` of `schema.pg.sql` for the index `name` (read once a process). */
function pgSchemaIndexSql(name: string): string {
  pgIndexSql ??= new Map(
    [...readSchema(PG_SCHEMA_FILE).matchAll(/^CREATE INDEX (\w+) ON [^;]+/gm)].map((match) => [
      match[1]!,
      match[0],
    ]),
  );
  const sql = pgIndexSql.get(name);
  if (sql === undefined) throw new Error(`${PG_SCHEMA_FILE} has no index ${name}`);
  return sql;
}
