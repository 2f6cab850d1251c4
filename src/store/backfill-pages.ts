/**
 * A backfill page in one statement, on PostgreSQL. A page of a backfill is one unit of work
 * (`MirrorWriter.backfillPage`): the lease checked, the ids noted as seen, the page kept with the
 * backfill's progress, its new tasks and their assignees inserted. As a transaction of separate
 * statements that is eight round trips to the server a page, and over a network each costs its
 * latency twice (benchmark 9c). Here the common case, a page of tasks the mirror does not hold
 * yet, goes as one statement of data-modifying CTEs, which PostgreSQL runs atomically on its own:
 * one round trip. Anything else (a task held already or seen before in this read, a lease not
 * held, a unique violation from a race) writes nothing here, and the caller takes the
 * transactional path, which handles every case. SQLite has no round trips to save: it always
 * takes that path.
 */
import type { Db } from './database.js';
import { encodeRows } from './task-pages.js';
import { pickRows, type TaskRows } from './task-rows.js';
import { PG_ASSIGN_PAGE, PG_INSERT_PAGE, pageArrays, pageAssignments } from './tasks.js';

/** PostgreSQL's SQLSTATE for a unique violation: another writer inserted one of the ids. */
const UNIQUE_VIOLATION = '23505';

/** One backfill page's unit of work, as `writeAtOnce` takes it. */
export interface BackfillPageWrite {
  projectId: string;
  /** The daemon whose lease must be held (`ProjectFence.holder`); undefined for a sole owner. */
  holder: string | undefined;
  pageSize: number;
  page: number;
  etag: string | undefined;
  totalCount: number | null;
  /** Every task of the page, in page order (all are noted as seen). */
  rows: TaskRows;
  /** The ids among `rows` to write (those no write during the pass holds a later copy of). */
  write: ReadonlySet<string>;
  /** ISO-8601 UTC time of the write. */
  at: string;
}

/** Writes a backfill page in one statement (PostgreSQL's store has one; SQLite's has none). */
export class BackfillPages {
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = db.prepare(PG_PAGE_AT_ONCE);
  }

  /**
   * Writes the page in one statement if every one of its tasks is new to the mirror and to this
   * read, and the lease is held: true, and the page is committed. False, with nothing written,
   * otherwise: the caller writes it in a transaction. Never called inside a transaction.
   */
  async writeAtOnce(input: BackfillPageWrite): Promise<boolean> {
    const { rows, write } = input;
    const written = pickRows(rows, (id) => write.has(id));
    try {
      const ok = await this.stmt.pluck().get({
        projectId: input.projectId,
        holder: input.holder ?? null,
        seen: rows.ids,
        pageSize: input.pageSize,
        page: input.page,
        etag: input.etag ?? null,
        rowCount: rows.ids.length,
        totalCount: input.totalCount,
        at: input.at,
        ...pageArrays(written),
        // The page as kept is the JSON array the insert reads its tasks from: sent once.
        data: encodeRows(rows.texts),
        ...pageAssignments(written),
      });
      // The session reads booleans as SQLite does: 1 and 0.
      return ok === 1;
    } catch (error) {
      // The statement ran alone (never inside a transaction, which its failure would abort):
      // nothing of it was written, and the session goes on.
      if ((error as { sqlState?: unknown }).sqlState === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }
}

/**
 * Every part is conditioned on `go`: the lease is held (locked FOR SHARE for the statement),
 * no id of the page is in `tasks` or already seen in this read, and none repeats within it.
 * The seen ids are looked up one by one (LATERAL ... LIMIT 1, an index probe each): the TEMP
 * table has no statistics, and `id = ANY (...)` made the planner scan every id the read had
 * seen, a cost growing with each page (7 ms at page 150 of 200).
 * The assignees' foreign key is checked at the statement's end, after the tasks' insert.
 */
const PG_PAGE_AT_ONCE = `
WITH go AS (
  SELECT (@holder::text IS NULL OR EXISTS (
      SELECT 1 FROM project_leases
      WHERE project_id = @projectId AND daemon_id = @holder AND expires_at > now() FOR SHARE))
    AND NOT EXISTS (SELECT 1 FROM tasks WHERE id = ANY (@seen::text[]))
    AND NOT EXISTS (
      SELECT 1 FROM unnest(@seen::text[]) AS s (id),
        LATERAL (SELECT 1 FROM seen_tasks t WHERE t.project_id = @projectId AND t.id = s.id
                 LIMIT 1) AS hit)
    AND cardinality(@seen::text[]) = (SELECT count(DISTINCT id) FROM unnest(@seen::text[]) AS s (id))
    AS ok
),
seen AS (
  INSERT INTO seen_tasks (project_id, id)
  SELECT @projectId, id FROM unnest(@seen::text[]) AS s (id) WHERE (SELECT ok FROM go)
),
kept AS (
  INSERT INTO task_pages (project_id, page_size, page, etag, row_count, read_at, rows)
  SELECT @projectId, @pageSize, @page, @etag, @rowCount, @at, @data WHERE (SELECT ok FROM go)
  ON CONFLICT (project_id, page_size, page) DO UPDATE SET etag = excluded.etag,
    row_count = excluded.row_count, read_at = excluded.read_at, rows = excluded.rows
),
progress AS (
  UPDATE sync_state SET pages_read = @page, total_count = coalesce(@totalCount, total_count)
  WHERE project_id = @projectId AND (SELECT ok FROM go)
),
inserted AS (${PG_INSERT_PAGE} WHERE (SELECT ok FROM go)),
assigned AS (${PG_ASSIGN_PAGE} WHERE (SELECT ok FROM go) ON CONFLICT DO NOTHING)
SELECT ok FROM go`;
