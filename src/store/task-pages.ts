/**
 * The kept pages of list tasks (`task_pages`): each page's ETag with the rows it stood for. A 304
 * reuses them, an interrupted pass resumes from them, and a pass's final commit streams them.
 */
import { StoreError } from '../domain/index.js';
import type { Db } from './database.js';
import { dialectOf } from './db.js';

/** The error of a kept page a pass needs and the mirror no longer holds. */
export function keptPageMissing(projectId: string, page: number): StoreError {
  return new StoreError(`kept page ${page} of ${projectId} is missing`);
}

/** What is known of a kept page without reading its rows. */
export interface KeptPageHead {
  etag: string | null;
  rowCount: number;
}

/** One kept page: its ETag, how many rows it holds and their JSON (see `encodeRows`). */
export interface KeptPage extends KeptPageHead {
  rows: string;
}

/**
 * Joins rows' JSON texts into one JSON array, one row per line. `JSON.stringify` never writes a
 * raw newline, so `decodeRows` can split the array back into the same texts without parsing.
 */
export function encodeRows(texts: readonly string[]): string {
  return `[${texts.join(',\n')}]`;
}

/** The rows' own JSON texts of an array written by `encodeRows`. */
export function decodeRows(rows: string): string[] {
  return rows === '[]' ? [] : rows.slice(1, -1).split(',\n');
}

/** A kept page written again replaces the copy before. */
const REPLACE_PAGE = `ON CONFLICT (project_id, page_size, page) DO UPDATE SET etag = excluded.etag,
  row_count = excluded.row_count, read_at = excluded.read_at, rows = excluded.rows`;

/**
 * PostgreSQL: the statement (a data-modifying CTE's body) keeping, for `@projectId` at
 * `@pageSize` read at `@at`, the pages that `pages` selects (page, etag, row_count, rows), when
 * `condition` holds; for a statement that writes more than kept pages.
 */
export function pgKeepPages(pages: string, condition: string): string {
  return `INSERT INTO task_pages (project_id, page_size, page, etag, row_count, read_at, rows)
  SELECT @projectId, @pageSize, page.page, page.etag, page.row_count, @at::timestamptz, page.rows
  FROM (${pages}) AS page (page, etag, row_count, rows)
  WHERE ${condition}
  ${REPLACE_PAGE}`;
}

/**
 * SQLite: whether a kept page's `rows` are its task ids (a page kept by reference, see
 * `putReference`): a JSON array of strings, where a page kept by value is one of objects (a page
 * of no task is `[]` either way, and means the same).
 */
function byReference(rows: string): boolean {
  return rows.startsWith('["');
}

/**
 * The one writer of `task_pages`, and on SQLite of `task_page_refs` and `task_page_originals`:
 * a page a backfill inserted whole is kept by reference (its task ids), its rows being the tasks'
 * own texts, and the first write that changes or deletes one of them saves the text the page
 * holds (schema.sql's triggers). Read back, a page is the same either way.
 */
export class TaskPagesRepository {
  private readonly headsStmt;
  private readonly getStmt;
  private readonly putStmt;
  private readonly pruneStmt;
  private readonly removeStmt;
  /** SQLite: the statements of pages kept by reference; undefined on PostgreSQL. */
  private readonly refs;

  constructor(db: Db) {
    this.headsStmt = db.prepare<[string, number], KeptPageHead & { page: number }>(
      `SELECT page, etag, row_count AS rowCount FROM task_pages
       WHERE project_id = ? AND page_size = ? ORDER BY page`,
    );
    this.getStmt = db.prepare<[string, number, number], KeptPage>(
      `SELECT etag, row_count AS rowCount, rows FROM task_pages
       WHERE project_id = ? AND page_size = ? AND page = ?`,
    );
    this.putStmt = db.prepare(
      `INSERT INTO task_pages (project_id, page_size, page, etag, row_count, read_at, rows)
       VALUES (?, ?, ?, ?, ?, ?, ?) ${REPLACE_PAGE}`,
    );
    this.pruneStmt = db.prepare(
      'DELETE FROM task_pages WHERE project_id = ? AND (page_size <> ? OR page > ?)',
    );
    this.removeStmt = db.prepare('DELETE FROM task_pages WHERE project_id = ?');
    this.refs = dialectOf(db) === 'sqlite' ? referenceStatements(db) : undefined;
  }

  /** The ETag and row count of every kept page of a project at `pageSize`, without their rows. */
  async heads(
    projectId: string,
    pageSize: number,
  ): Promise<Array<KeptPageHead & { page: number }>> {
    return await this.headsStmt.all(projectId, pageSize);
  }

  /**
   * The kept copy of one page, if any; a page kept by reference with its rows read back (each
   * task's saved text, else its text in `tasks`), or undefined if a task of it is in neither.
   */
  async get(projectId: string, pageSize: number, page: number): Promise<KeptPage | undefined> {
    const kept = await this.getStmt.get(projectId, pageSize, page);
    if (kept === undefined || this.refs === undefined || !byReference(kept.rows)) return kept;
    const texts = await this.refs.texts.all({ projectId, ids: kept.rows });
    if (texts.some((text) => text === null)) return undefined;
    return { ...kept, rows: encodeRows(texts as string[]) };
  }

  /**
   * A kept page as a survey reads it: its task ids when kept by reference (SQLite; whether a
   * task differs from the page is `referenceDiffers`), else its encoded rows; undefined if none.
   */
  async look(
    projectId: string,
    pageSize: number,
    page: number,
  ): Promise<{ ids: string[] } | { rows: string } | undefined> {
    const kept = await this.getStmt.get(projectId, pageSize, page);
    if (kept === undefined) return undefined;
    if (this.refs !== undefined && byReference(kept.rows)) {
      return { ids: JSON.parse(kept.rows) as string[] };
    }
    return { rows: kept.rows };
  }

  /**
   * SQLite: whether any of `ids`, tasks of `projectId`'s pages kept by reference, is not in the
   * mirror as its page has it: the task gone or moved, or a saved text unlike the task's (the
   * mirror's own text is the page's while none is saved).
   */
  async referenceDiffers(projectId: string, ids: readonly string[]): Promise<boolean> {
    if (this.refs === undefined) throw new Error('pages are kept by reference on SQLite only');
    if (ids.length === 0) return false;
    return (await this.refs.differs.get({ projectId, ids: JSON.stringify(ids) })) !== undefined;
  }

  /** Keeps a page's rows (JSON texts) under its ETag, replacing the copy before. */
  async put(
    projectId: string,
    pageSize: number,
    page: number,
    etag: string | undefined,
    texts: readonly string[],
    readAt: string,
  ): Promise<void> {
    const rows = encodeRows(texts);
    await this.putStmt.run(projectId, pageSize, page, etag ?? null, texts.length, readAt, rows);
    if (this.refs === undefined) return;
    await this.refs.drop.run(projectId, pageSize, page);
    await this.refs.forget.run({ projectId });
  }

  /**
   * SQLite: keeps a page a backfill has just inserted whole by reference: its task ids, in page
   * order, whose texts in `tasks` are the page's rows (none saved for them before counts).
   */
  async putReference(
    projectId: string,
    pageSize: number,
    page: number,
    etag: string | undefined,
    ids: readonly string[],
    readAt: string,
  ): Promise<void> {
    if (this.refs === undefined) throw new Error('pages are kept by reference on SQLite only');
    const rows = JSON.stringify(ids);
    await this.putStmt.run(projectId, pageSize, page, etag ?? null, ids.length, readAt, rows);
    await this.refs.add.run(projectId, pageSize, page);
    await this.refs.fresh.run({ projectId, ids: rows });
  }

  /** Drops the pages a consistent pass no longer uses: other page sizes and pages past the last. */
  async prune(projectId: string, pageSize: number, lastPage: number): Promise<void> {
    await this.pruneStmt.run(projectId, pageSize, lastPage);
    if (this.refs === undefined) return;
    await this.refs.prune.run(projectId, pageSize, lastPage);
    await this.refs.forget.run({ projectId });
  }

  /** Drops every kept page of a project. */
  async remove(projectId: string): Promise<void> {
    await this.removeStmt.run(projectId);
    if (this.refs === undefined) return;
    await this.refs.remove.run(projectId);
    await this.refs.forget.run({ projectId });
  }
}

/** SQLite: the statements of `task_page_refs` and `task_page_originals`. */
function referenceStatements(db: Db) {
  return {
    add: db.prepare(
      `INSERT INTO task_page_refs (project_id, page_size, page) VALUES (?, ?, ?)
       ON CONFLICT DO NOTHING`,
    ),
    drop: db.prepare(
      'DELETE FROM task_page_refs WHERE project_id = ? AND page_size = ? AND page = ?',
    ),
    prune: db.prepare(
      'DELETE FROM task_page_refs WHERE project_id = ? AND (page_size <> ? OR page > ?)',
    ),
    remove: db.prepare('DELETE FROM task_page_refs WHERE project_id = ?'),
    // Texts saved before the page was kept are of an older page: its tasks' texts are `tasks`'.
    fresh: db.prepare(
      `DELETE FROM task_page_originals
       WHERE project_id = @projectId AND task_id IN (SELECT value FROM json_each(@ids))`,
    ),
    // The saved texts go with the project's last page kept by reference.
    forget: db.prepare(
      `DELETE FROM task_page_originals WHERE project_id = @projectId
       AND NOT EXISTS (SELECT 1 FROM task_page_refs WHERE project_id = @projectId)`,
    ),
    differs: db.prepare<{ projectId: string; ids: string }, number>(
      `SELECT 1 FROM json_each(@ids) j
       LEFT JOIN tasks t ON t.id = j.value
       LEFT JOIN task_page_originals o ON o.project_id = @projectId AND o.task_id = j.value
       WHERE t.id IS NULL OR t.project_id <> @projectId OR o.data <> t.data
       LIMIT 1`,
    ),
    texts: db
      .prepare<{ projectId: string; ids: string }, string | null>(
        `SELECT coalesce(o.data, t.data) FROM json_each(@ids) j
         LEFT JOIN task_page_originals o ON o.project_id = @projectId AND o.task_id = j.value
         LEFT JOIN tasks t ON t.id = j.value
         ORDER BY j.key`,
      )
      .pluck(),
  };
}
