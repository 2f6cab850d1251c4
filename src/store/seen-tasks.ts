/**
 * The ids of the tasks a full pass has read, so that the pass can tell a repeated row from a new
 * one and delete, at its end, exactly the tasks it did not see. They live in a TEMP table of this
 * connection (the only DDL outside the schema files): memory does not grow with the project, and no
 * byte of it reaches the mirror file.
 *
 * SQLite: a backfill page whose every task was new to the mirror is noted as a page (`defer`), not
 * as its ids. While a read has noted only such pages, every id it saw is a task it inserted, so a
 * later page that repeats one fails its own insert and takes the way that marks ids, which first
 * marks those of the noted pages from their kept copies (`settle`). A cold sync so writes one TEMP
 * row a page instead of one a task (its store thread 510-550 -> 470-490 ms over 100,000 tasks,
 * benchmark 1).
 */
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { sqliteOf } from './sqlite-connection.js';

const SEEN_TASKS_DDL = `CREATE TEMP TABLE IF NOT EXISTS seen_tasks (
  project_id TEXT NOT NULL,
  id         TEXT NOT NULL,
  PRIMARY KEY (project_id, id)
)`;

/** SQLite: the backfill pages a read noted whole (`SeenTasks.defer`), their ids not yet marked. */
const SEEN_PAGES_DDL = `CREATE TEMP TABLE IF NOT EXISTS seen_pages (
  project_id TEXT NOT NULL,
  page_size  INTEGER NOT NULL,
  page       INTEGER NOT NULL,
  row_count  INTEGER NOT NULL,
  PRIMARY KEY (project_id, page_size, page)
) WITHOUT ROWID`;

/** The TEMP tables a PostgreSQL session creates when it connects (TEMP tables die with it). */
export const PG_SESSION_TABLES: readonly string[] = [SEEN_TASKS_DDL];

/** The condition on `tasks` of a project's tasks its pass has not seen (`@projectId`). */
export const UNSEEN = `project_id = @projectId
  AND NOT EXISTS (SELECT 1 FROM seen_tasks s WHERE s.project_id = @projectId AND s.id = tasks.id)`;

/**
 * PostgreSQL: the statement (a data-modifying CTE's body) noting as seen, for `@projectId`, the
 * ids that `ids` selects (a query of one column), for a statement that writes more than seen ids.
 */
export function pgMarkSeen(ids: string): string {
  return `INSERT INTO seen_tasks (project_id, id) SELECT @projectId, s.id FROM (${ids}) AS s (id)`;
}

/** Rolls back `SeenTasks.allNew`'s insert: a page held an id that was not new. Never escapes. */
const NOT_ALL_NEW = Symbol('not all new');

/** The set of task ids read by the pass in hand, per project. */
export class SeenTasks {
  private readonly clearStmt;
  private readonly markStmt;
  private readonly countStmt;
  private readonly seenStmt;
  private readonly markAllStmt;
  private readonly markNewStmt;
  private readonly db: Db;
  private readonly sqlite: boolean;
  /** SQLite: the statements of pages noted whole (`defer`); undefined on PostgreSQL. */
  private readonly pages;

  constructor(db: Db) {
    // PostgreSQL's session creates it on every (re)connection: see `PG_SESSION_TABLES`.
    sqliteOf(db)?.exec(`${SEEN_TASKS_DDL} WITHOUT ROWID`);
    sqliteOf(db)?.exec(SEEN_PAGES_DDL);
    this.pages = sqliteOf(db) && {
      clear: db.prepare('DELETE FROM seen_pages WHERE project_id = ?'),
      note: db.prepare(
        `INSERT INTO seen_pages (project_id, page_size, page, row_count) VALUES (?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET row_count = excluded.row_count`,
      ),
      pending: db.prepare<[string], number>(
        'SELECT 1 FROM seen_pages WHERE project_id = ? LIMIT 1',
      ),
      marked: db.prepare<[string], number>('SELECT 1 FROM seen_tasks WHERE project_id = ? LIMIT 1'),
      rows: db.prepare<[string], number>(
        'SELECT coalesce(sum(row_count), 0) FROM seen_pages WHERE project_id = ?',
      ),
      // Each noted page's ids, from its kept copy: the JSON array `encodeRows` wrote, or the ids
      // of a page kept by reference.
      settle: db.prepare(
        `INSERT INTO seen_tasks (project_id, id)
         SELECT s.project_id,
           CASE j.type WHEN 'text' THEN j.value ELSE json_extract(j.value, '$.id') END
         FROM seen_pages s
         JOIN task_pages p ON p.project_id = s.project_id AND p.page_size = s.page_size
           AND p.page = s.page,
           json_each(p.rows) AS j
         WHERE s.project_id = ?
         ON CONFLICT DO NOTHING`,
      ),
    };
    this.clearStmt = db.prepare('DELETE FROM seen_tasks WHERE project_id = ?');
    this.markStmt = db.prepare(
      'INSERT INTO seen_tasks (project_id, id) VALUES (?, ?) ON CONFLICT DO NOTHING',
    );
    this.countStmt = db.prepare<{ projectId: string }, number>(
      `SELECT count(*) FROM tasks WHERE ${UNSEEN}`,
    );
    this.countStmt.pluck();
    this.seenStmt = db.prepare<[string], number>(
      'SELECT count(*) FROM seen_tasks WHERE project_id = ?',
    );
    this.seenStmt.pluck();
    this.db = db;
    this.sqlite = dialectOf(db) === 'sqlite';
    this.markNewStmt = this.sqlite
      ? db.prepare(
          `INSERT INTO seen_tasks (project_id, id) SELECT @projectId, value FROM json_each(@ids)
           WHERE true ON CONFLICT DO NOTHING`,
        )
      : undefined;
    this.markAllStmt = this.sqlite
      ? db.prepare(
          `INSERT INTO seen_tasks (project_id, id) SELECT @projectId, value FROM json_each(@ids)
           WHERE true ON CONFLICT DO NOTHING RETURNING id`,
        )
      : db.prepare(
          `INSERT INTO seen_tasks (project_id, id) SELECT @projectId, unnest(@ids::text[])
           ON CONFLICT DO NOTHING RETURNING id`,
        );
  }

  /** Forgets what a project's pass has seen. */
  async clear(projectId: string): Promise<void> {
    await this.clearStmt.run(projectId);
    await this.pages?.clear.run(projectId);
  }

  /**
   * True when a page may be noted whole (`defer`): SQLite, and the read in hand has marked no id
   * of the project one by one.
   */
  async mayDefer(projectId: string): Promise<boolean> {
    return (
      this.pages !== undefined && (await this.pages.marked.pluck().get(projectId)) === undefined
    );
  }

  /**
   * Notes a backfill page as seen whole: the caller has just inserted every one of its
   * `rowCount` tasks, none of which the mirror held, and kept the page (`mayDefer` said yes).
   */
  async defer(projectId: string, pageSize: number, page: number, rowCount: number): Promise<void> {
    if (this.pages === undefined) throw new Error('pages are noted whole on SQLite only');
    await this.pages.note.run(projectId, pageSize, page, rowCount);
  }

  /** Marks the ids of the pages noted whole, from their kept copies; a no-op when there are none. */
  async settle(projectId: string): Promise<void> {
    const { pages } = this;
    if (pages === undefined || (await pages.pending.pluck().get(projectId)) === undefined) return;
    await pages.settle.run(projectId);
    await pages.clear.run(projectId);
  }

  /** Notes a task as seen; false if it was seen already (a row read twice). */
  async mark(projectId: string, taskId: string): Promise<boolean> {
    await this.settle(projectId);
    return (await this.markStmt.run(projectId, taskId)).changes === 1;
  }

  /**
   * Notes the tasks of one page as seen; the first id seen already (or twice in `taskIds`), if
   * any. One statement for the page on both engines, instead of one per task.
   */
  async markAll(projectId: string, taskIds: readonly string[]): Promise<string | undefined> {
    await this.settle(projectId);
    // SQLite takes the page's ids as one JSON array, PostgreSQL as an array parameter.
    const ids = this.sqlite ? JSON.stringify(taskIds) : [...taskIds];
    if (await this.allNew(projectId, ids, taskIds.length)) return undefined;
    const added = (await this.markAllStmt.pluck().all({ projectId, ids })) as string[];
    if (added.length === taskIds.length) return undefined;
    const fresh = new Set(added);
    const counted = new Set<string>();
    return taskIds.find((taskId) => {
      const repeated = !fresh.has(taskId) || counted.has(taskId);
      counted.add(taskId);
      return repeated;
    });
  }

  /**
   * SQLite: notes the ids and keeps them if every one was new (a page nearly always), without
   * returning them, which cost a third of the statement; otherwise undoes the insert (the
   * connection's own nested transaction: a savepoint inside the caller's), for `markAll` to find
   * the id that was not new.
   */
  private async allNew(projectId: string, ids: string | string[], count: number): Promise<boolean> {
    const stmt = this.markNewStmt;
    if (stmt === undefined) return false;
    try {
      return await this.db.transaction(async () => {
        if ((await stmt.run({ projectId, ids })).changes !== count) throw NOT_ALL_NEW;
        return true;
      });
    } catch (error) {
      if (error === NOT_ALL_NEW) return false;
      throw error;
    }
  }

  /** How many task ids the project's pass has seen (those of pages noted whole too). */
  async count(projectId: string): Promise<number> {
    const whole = this.pages ? Number(await this.pages.rows.pluck().get(projectId)) : 0;
    return ((await this.seenStmt.get(projectId)) ?? 0) + whole;
  }

  /** How many of the project's tasks this pass has not seen (a scan of the project's tasks). */
  async countUnseen(projectId: string): Promise<number> {
    await this.settle(projectId);
    return (await this.countStmt.get({ projectId })) ?? 0;
  }
}
