/**
 * What a cold sync builds once instead of row by row: the secondary indexes of the tasks, the
 * trigger that adds an inserted task to the full-text index, and the change feed's insert triggers. A backfill that starts on a mirror
 * holding no task, and no project but those whose first backfill is under way, drops them; the
 * next pass commit makes them again from `schema.sql` (an index built over 100,000 rows costs a
 * fraction of keeping it through their inserts; the trigger, which only finds for each row that
 * its backfill is under way, cost 0.1 s of them). Readers meanwhile get the same rows, scanned.
 *
 * Nothing is lost to the full-text index or the change feed, whoever writes (this daemon, an event, an outbox
 * answer, another process on the same file) and across a crash: while the trigger is gone no
 * project has completed a backfill, since the commit that completes one makes it again first,
 * so every task inserted meanwhile belongs to a project whose backfill is under way, which the
 * triggers would have skipped and which the index takes whole (and the feed notes with one
 * `reload` row) when that backfill completes (schema.sql's triggers on `sync_state`). A project with no task whose backfill has completed
 * keeps the drop from happening. SQLite only: PostgreSQL keeps its indexes and has no such
 * trigger.
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

/**
 * SQLite's page cache while the deferred indexes are built, in KiB (SQLite's own default; the
 * mirror's connection otherwise keeps better-sqlite3's 16 MiB). An index build sorts its keys in
 * memory up to the cache's size (16 MiB) before it spills them to a temporary file, so over a
 * large project the sort made the cold sync's peak: over 1,000,000 tasks 203-206 MiB, against
 * 191-193 MiB with the bound, where the peak is the pages' own (benchmark 5). Bounded, the sort
 * spills sooner (SQLite sorts at least 250 pages in memory, 4 MiB at the mirror's page size) and
 * the builds take no longer.
 */
export const INDEX_BUILD_CACHE_KIB = 2_000;

/**
 * The triggers a cold sync defers: none would do anything for the rows of a backfill. The change
 * feed's insert triggers of tasks and assignees (issue 37) only find, for each row, that its
 * backfill is under way: 0.4 s over 100,000 tasks and their assignees, a cold sync's CPU ratio
 * (benchmark 1) down from 0.50 to about 0.35 had they stayed.
 */
export const DEFERRED_TRIGGERS: readonly string[] = [
  'tasks_fts_after_insert',
  'tasks_changes_insert',
  'task_assignees_changes_insert',
];

const DEFERRED = [
  ...DEFERRED_INDEXES.map((name) => ({ type: 'index', name })),
  ...DEFERRED_TRIGGERS.map((name) => ({ type: 'trigger', name })),
];

/** Drops and makes again the deferred objects, inside the caller's transaction. */
export class DeferredObjects {
  private readonly db: Db;
  private readonly sqlite: boolean;
  private readonly missingStmt;
  private readonly neededStmt;

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
    // A task held, or a project not in its first backfill: an insert could need the trigger.
    this.neededStmt = db.prepare(`SELECT 1 FROM tasks
      UNION ALL SELECT 1 FROM projects p WHERE NOT EXISTS (
        SELECT 1 FROM sync_state s WHERE s.project_id = p.id AND s.backfill <> 'done')
      UNION ALL SELECT 1 FROM sync_state WHERE backfill = 'done'
      LIMIT 1`);
  }

  /**
   * A backfill begins (its project and state written): on a mirror holding no task, and no
   * project but those whose first backfill is under way, the objects go until the commit.
   */
  async deferIfEmpty(): Promise<void> {
    if (!this.sqlite || (await this.neededStmt.get()) !== undefined) return;
    for (const { type, name } of DEFERRED) {
      await this.db.exec(`DROP ${type.toUpperCase()} IF EXISTS ${name}`);
    }
  }

  /**
   * A pass commits: any deferred object missing is made (a no-op read when none is), with the
   * page cache bounded meanwhile (`INDEX_BUILD_CACHE_KIB`) and given back its size after.
   */
  async restore(): Promise<void> {
    if (this.missingStmt === undefined || (await this.missingStmt.pluck().get()) === 0) return;
    const cacheSize = Number(await this.db.prepare('PRAGMA main.cache_size').pluck().get());
    await this.db.exec(`PRAGMA main.cache_size = -${INDEX_BUILD_CACHE_KIB}`);
    try {
      for (const { type, name } of DEFERRED) {
        const create = new RegExp(`^CREATE ${type.toUpperCase()} `);
        const sql = schemaObjectSql(type, name);
        await this.db.exec(sql.replace(create, `CREATE ${type.toUpperCase()} IF NOT EXISTS `));
      }
    } finally {
      await this.db.exec(`PRAGMA main.cache_size = ${cacheSize}`);
    }
  }
}
