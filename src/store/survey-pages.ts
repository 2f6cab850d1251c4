/**
 * Kept pages surveyed several at a time in one statement, on PostgreSQL. The survey of a pass's
 * commit (`src/store/writer/commit.ts`) walks the kept pages: each page's ids are noted as seen, and the
 * page is marked changed if any task of it the pass did not see written meanwhile is not in the
 * mirror as the page has it. As a snapshot of separate statements that is five round trips a page
 * (begin, read the page, note its ids, compare, commit) and the page's text sent to the client and
 * back: an unchanged pass of 200 pages took 1,023 round trips (benchmark 8's second pass). Here
 * `SURVEY_PAGES_PER_STATEMENT` pages are one statement, which PostgreSQL runs in one snapshot on
 * its own, and which notes exactly what surveying them one by one would: the ids of the pages up
 * to the first one holding a repeated task, or up to the last one kept before a missing one.
 * SQLite has no round trips to save: it takes the snapshot path, a page at a time.
 */
import type { Db } from './database.js';
import { pgMarkSeen } from './seen-tasks.js';

/** Kept pages one statement surveys at most. */
export const SURVEY_PAGES_PER_STATEMENT = 10;

/** What surveying one kept page found. */
export interface PageSurvey {
  page: number;
  /** False when the mirror holds no such kept page (no id of the pages after it was noted). */
  kept: boolean;
  /** The first task of the page already seen in this read (or twice in the page), if any. */
  repeated: string | undefined;
  /** True when a task of the page (not among the guarded) is not in the mirror as kept. */
  differs: boolean;
}

/** Surveys kept pages in one statement (PostgreSQL's store has one; SQLite's has none). */
export class SurveyPages {
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = db.prepare(PG_SURVEY_PAGES);
  }

  /**
   * Surveys the kept pages `first..last` in order, as one by one: notes their task ids as seen
   * up to the first page with a repeated task or before the first page missing, and compares
   * their tasks, except `guarded`, with the mirror. One result a page, in order. Never inside a
   * transaction: the statement is its own.
   */
  async survey(
    projectId: string,
    pageSize: number,
    first: number,
    last: number,
    guarded: ReadonlySet<string>,
  ): Promise<PageSurvey[]> {
    const found = (await this.stmt.all({
      projectId,
      pageSize,
      first,
      last,
      guarded: [...guarded],
    })) as Array<{ page: number; kept: number; repeated: string | null; differs: number }>;
    // The session reads booleans as SQLite does: 1 and 0.
    return found.map((row) => ({
      page: row.page,
      kept: row.kept === 1,
      repeated: row.repeated ?? undefined,
      differs: row.differs === 1,
    }));
  }
}

/**
 * The pages' tasks in order (page, then position). A task is repeated when the read saw it
 * before this statement (`seen_tasks` as the statement's snapshot has it, each id probed on its
 * own: the TEMP table has no statistics, and a join made the planner read all of it, a cost
 * growing with each statement) or an earlier place in these pages holds it. Only the pages up to the first with a repeat, and before the first
 * missing, have their ids noted (ON CONFLICT DO NOTHING), as a page-by-page walk would stop
 * there. Whether any task outside `@guarded` is missing from the mirror, of another project or
 * with other data, is compared as `jsonb`, as `TaskReads.anyDiffers` does. The CTEs share
 * one snapshot, so the comparison reads the mirror as it was when the statement began.
 */
const PG_SURVEY_PAGES = `
WITH wanted AS (
  SELECT generate_series(@first::integer, @last::integer) AS page
),
pages AS (
  SELECT page, rows::jsonb AS tasks FROM task_pages
  WHERE project_id = @projectId AND page_size = @pageSize AND page BETWEEN @first AND @last
),
kept AS (
  SELECT p.page, e.ord, e.task, e.task ->> 'id' AS id
  FROM pages p, jsonb_array_elements(p.tasks) WITH ORDINALITY AS e (task, ord)
),
placed AS (
  SELECT page, ord, id, row_number() OVER (PARTITION BY id ORDER BY page, ord) AS nth FROM kept
),
repeats AS (
  SELECT page, ord, id FROM placed
  WHERE nth > 1 OR EXISTS (
    SELECT 1 FROM (SELECT 1 FROM seen_tasks s
                   WHERE s.project_id = @projectId AND s.id = placed.id LIMIT 1) AS hit)
),
stop AS (
  SELECT least(
    (SELECT min(page) FROM repeats),
    (SELECT min(w.page) - 1 FROM wanted w WHERE NOT EXISTS (
      SELECT 1 FROM pages p WHERE p.page = w.page)),
    @last::integer) AS page
),
marked AS (
  ${pgMarkSeen('SELECT id FROM kept WHERE page <= (SELECT page FROM stop)')}
  ON CONFLICT DO NOTHING
),
first_repeats AS (SELECT DISTINCT ON (page) page, id FROM repeats ORDER BY page, ord),
differing AS (
  SELECT DISTINCT k.page FROM kept k LEFT JOIN tasks t ON t.id = k.id
  WHERE NOT (k.id = ANY (@guarded::text[]))
    AND (t.id IS NULL OR t.project_id <> @projectId OR t.data <> k.task)
)
SELECT
  w.page,
  (EXISTS (SELECT 1 FROM pages p WHERE p.page = w.page))::int AS kept,
  (SELECT r.id FROM first_repeats r WHERE r.page = w.page) AS repeated,
  EXISTS (SELECT 1 FROM differing d WHERE d.page = w.page) AS differs
FROM wanted w
ORDER BY w.page`;
