/**
 * Backfill pages in one statement, on PostgreSQL. A page of a backfill is one unit of work
 * (`MirrorWriter.backfillPage`): the lease checked, the ids noted as seen, the page kept with the
 * backfill's progress, its new tasks and their assignees inserted. As a transaction of separate
 * statements that is eight round trips to the server a page, and over a network each costs its
 * latency twice (benchmark 9c). Here the common case, pages of tasks the mirror does not hold
 * yet, goes as one statement of data-modifying CTEs, which PostgreSQL runs atomically on its own:
 * one round trip for `PAGES_PER_STATEMENT` pages, which the pager hands over together
 * (`PassStart.pagesPerWrite`), so the latency is paid once for both. Anything else (a task held
 * already or seen before in this read, a lease not held, a unique violation from a race) writes
 * nothing here, and the caller takes the transactional path, page by page, which handles every
 * case. SQLite has no round trips to save: it always takes that path, a page at a time.
 */
import type { Db } from './database.js';
import { encodeRows } from './task-pages.js';
import { emptyRows, pickRows, type TaskRows } from './task-rows.js';
import { PG_ASSIGN_PAGE, pageArrays, pageAssignments, pgInsertTasks } from './tasks.js';

/** PostgreSQL's SQLSTATE for a unique violation: another writer inserted one of the ids. */
const UNIQUE_VIOLATION = '23505';

/** PostgreSQL: how many backfill pages one statement writes, when they come together. */
export const PAGES_PER_STATEMENT = 2;

/** One page of a backfill's write, as `writeAtOnce` takes it. */
export interface BackfillPageWrite {
  page: number;
  etag: string | undefined;
  totalCount: number | null;
  /** Every task of the page, in page order (all are noted as seen). */
  rows: TaskRows;
  /** The ids among `rows` to write (those no write during the pass holds a later copy of). */
  write: ReadonlySet<string>;
}

/** Consecutive pages of a backfill written as one unit of work, as `writeAtOnce` takes them. */
export interface BackfillPagesWrite {
  projectId: string;
  /** The daemon whose lease must be held (`ProjectFence.holder`); undefined for a sole owner. */
  holder: string | undefined;
  pageSize: number;
  /** The pages, in read order (at most `PAGES_PER_STATEMENT`). */
  pages: readonly BackfillPageWrite[];
  /** ISO-8601 UTC time of the write. */
  at: string;
}

/** Writes backfill pages in one statement (PostgreSQL's store has one; SQLite's has none). */
export class BackfillPages {
  private readonly db: Db;
  /** The statement for each number of pages, made when first needed. */
  private readonly statements = new Map<number, ReturnType<Db['prepare']>>();

  constructor(db: Db) {
    this.db = db;
  }

  /**
   * Writes the pages in one statement if every one of their tasks is new to the mirror and to
   * this read, and the lease is held: true, and the pages are committed together. False, with
   * nothing written, otherwise: the caller writes each page in a transaction. Never called
   * inside a transaction.
   */
  async writeAtOnce(input: BackfillPagesWrite): Promise<boolean> {
    const { pages } = input;
    const written = joinRows(pages.map(({ rows, write }) => pickRows(rows, (id) => write.has(id))));
    const values: Record<string, unknown> = {
      projectId: input.projectId,
      holder: input.holder ?? null,
      seen: pages.flatMap(({ rows }) => rows.ids),
      pageSize: input.pageSize,
      lastPage: pages[pages.length - 1]!.page,
      totalCount: pages.reduce<number | null>((total, page) => page.totalCount ?? total, null),
      at: input.at,
      ...pageArrays(written),
      ...pageAssignments(written),
    };
    pages.forEach((page, i) => {
      values[`page${i}`] = page.page;
      values[`etag${i}`] = page.etag ?? null;
      values[`rowCount${i}`] = page.rows.ids.length;
      // The page as kept is the JSON array the insert reads its tasks from: sent once.
      values[`data${i}`] = encodeRows(page.rows.texts);
    });
    try {
      const ok = await this.statement(pages.length).pluck().get(values);
      // The session reads booleans as SQLite does: 1 and 0.
      return ok === 1;
    } catch (error) {
      // The statement ran alone (never inside a transaction, which its failure would abort):
      // nothing of it was written, and the session goes on.
      if ((error as { sqlState?: unknown }).sqlState === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  private statement(pages: number) {
    let statement = this.statements.get(pages);
    if (statement === undefined) {
      statement = this.db.prepare(pagesAtOnce(pages));
      this.statements.set(pages, statement);
    }
    return statement;
  }
}

/** The rows of several pages as one page's, in order. */
function joinRows(pages: readonly TaskRows[]): TaskRows {
  if (pages.length === 1) return pages[0]!;
  const joined = emptyRows();
  for (const rows of pages) {
    for (const key of Object.keys(joined) as Array<keyof TaskRows>) {
      (joined[key] as unknown[]).push(...(rows[key] as unknown[]));
    }
  }
  return joined;
}

/**
 * The statement writing `pages` pages. Every part is conditioned on `go`: the lease is held
 * (locked FOR SHARE for the statement), no id of the pages is in `tasks` or already seen in this
 * read, and none repeats within them. The seen ids are looked up one by one (LATERAL ... LIMIT 1,
 * an index probe each): the TEMP table has no statistics, and `id = ANY (...)` made the planner
 * scan every id the read had seen, a cost growing with each page (7 ms at page 150 of 200).
 * Each page is kept with its own ETag and JSON array (`@data0`, `@data1`...), from which the
 * insert takes the tasks' JSON too. The assignees' foreign key is checked at the statement's
 * end, after the tasks' insert.
 */
function pagesAtOnce(pages: number): string {
  const each = (part: (i: number) => string, glue: string) =>
    Array.from({ length: pages }, (_, i) => part(i)).join(glue);
  const kept = each(
    (i) => `SELECT @page${i}::integer, @etag${i}::text, @rowCount${i}::integer, @data${i}::text`,
    ' UNION ALL ',
  );
  const tasks = each((i) => `SELECT jsonb_array_elements(@data${i}::jsonb) AS data`, ' UNION ALL ');
  return `
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
  SELECT @projectId, @pageSize, page.page, page.etag, page.row_count, @at::timestamptz, page.rows
  FROM (${kept}) AS page (page, etag, row_count, rows)
  WHERE (SELECT ok FROM go)
  ON CONFLICT (project_id, page_size, page) DO UPDATE SET etag = excluded.etag,
    row_count = excluded.row_count, read_at = excluded.read_at, rows = excluded.rows
),
progress AS (
  UPDATE sync_state SET pages_read = @lastPage,
    total_count = coalesce(@totalCount::integer, total_count)
  WHERE project_id = @projectId AND (SELECT ok FROM go)
),
inserted AS (${pgInsertTasks(`(${tasks})`)} WHERE (SELECT ok FROM go)),
assigned AS (${PG_ASSIGN_PAGE} WHERE (SELECT ok FROM go) ON CONFLICT DO NOTHING)
SELECT ok FROM go`;
}
