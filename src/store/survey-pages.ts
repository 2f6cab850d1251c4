/**
 * A kept page surveyed in one statement, on PostgreSQL. The survey of a pass's commit
 * (`src/mirror/commit.ts`) walks the kept pages: each page's ids are noted as seen, and the page
 * is marked changed if any task of it the pass did not see written meanwhile is not in the mirror
 * as the page has it. As a snapshot of separate statements that is five round trips a page (begin,
 * read the page, note its ids, compare, commit) and the page's text sent to the client and back:
 * an unchanged pass of 200 pages took 1,023 round trips (benchmark 8's second pass). Here it is
 * one statement, which PostgreSQL runs in one snapshot on its own. SQLite has no round trips to
 * save: it takes the snapshot path.
 */
import type { Db } from './database.js';
import { keptPageMissing } from './task-pages.js';

/** What surveying one kept page found. */
export interface PageSurvey {
  /** The first task of the page already seen in this read (or twice in the page), if any. */
  repeated: string | undefined;
  /** True when a task of the page (not among the guarded) is not in the mirror as kept. */
  differs: boolean;
}

/** Surveys a kept page in one statement (PostgreSQL's store has one; SQLite's has none). */
export class SurveyPages {
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = db.prepare(PG_SURVEY_PAGE);
  }

  /**
   * Notes the kept page's task ids as seen and compares its tasks, except `guarded`, with the
   * mirror. Never inside a transaction: the statement is its own.
   */
  async survey(
    projectId: string,
    pageSize: number,
    page: number,
    guarded: ReadonlySet<string>,
  ): Promise<PageSurvey> {
    const found = (await this.stmt.get({
      projectId,
      pageSize,
      page,
      guarded: [...guarded],
    })) as { kept: number; repeated: string | null; differs: number };
    // The session reads booleans as SQLite does: 1 and 0.
    if (found.kept !== 1) throw keptPageMissing(projectId, page);
    return { repeated: found.repeated ?? undefined, differs: found.differs === 1 };
  }
}

/**
 * The page's tasks in order, each noted as seen (ON CONFLICT DO NOTHING: an id seen before, or
 * twice in the page, is not returned by the insert); the first such id, by position; and whether
 * any task outside `@guarded` is missing from the mirror, of another project or with other data
 * (compared as `jsonb`, as `TasksRepository.anyDiffers` does). The CTEs share one snapshot, so
 * the comparison reads the mirror as it was when the statement began.
 */
const PG_SURVEY_PAGE = `
WITH page AS (
  SELECT rows::jsonb AS tasks FROM task_pages
  WHERE project_id = @projectId AND page_size = @pageSize AND page = @page
),
kept AS (
  SELECT e.ord, e.task, e.task ->> 'id' AS id
  FROM page, jsonb_array_elements(page.tasks) WITH ORDINALITY AS e (task, ord)
),
marked AS (
  INSERT INTO seen_tasks (project_id, id)
  SELECT @projectId, id FROM kept
  ON CONFLICT DO NOTHING
  RETURNING id
),
first AS (SELECT id, min(ord) AS ord FROM kept GROUP BY id)
SELECT
  (SELECT count(*) FROM page)::int AS kept,
  (SELECT k.id FROM kept k JOIN first f ON f.id = k.id
   WHERE k.ord > f.ord OR NOT EXISTS (SELECT 1 FROM marked m WHERE m.id = k.id)
   ORDER BY k.ord LIMIT 1) AS repeated,
  EXISTS (
    SELECT 1 FROM kept k LEFT JOIN tasks t ON t.id = k.id
    WHERE NOT (k.id = ANY (@guarded::text[]))
      AND (t.id IS NULL OR t.project_id <> @projectId OR t.data <> k.task)
  ) AS differs`;
