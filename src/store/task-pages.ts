/**
 * The kept pages of list tasks (`task_pages`): each page's ETag with the rows it stood for. A 304
 * reuses them, an interrupted pass resumes from them, and a pass's final commit streams them.
 */
import { StoreError } from '../domain/index.js';
import type { Db } from './database.js';

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

/** The one writer of `task_pages`. */
export class TaskPagesRepository {
  private readonly headsStmt;
  private readonly getStmt;
  private readonly putStmt;
  private readonly pruneStmt;
  private readonly removeStmt;

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
  }

  /** The ETag and row count of every kept page of a project at `pageSize`, without their rows. */
  async heads(
    projectId: string,
    pageSize: number,
  ): Promise<Array<KeptPageHead & { page: number }>> {
    return await this.headsStmt.all(projectId, pageSize);
  }

  /** The kept copy of one page, if any. */
  async get(projectId: string, pageSize: number, page: number): Promise<KeptPage | undefined> {
    return await this.getStmt.get(projectId, pageSize, page);
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
  }

  /** Drops the pages a consistent pass no longer uses: other page sizes and pages past the last. */
  async prune(projectId: string, pageSize: number, lastPage: number): Promise<void> {
    await this.pruneStmt.run(projectId, pageSize, lastPage);
  }

  /** Drops every kept page of a project. */
  async remove(projectId: string): Promise<void> {
    await this.removeStmt.run(projectId);
  }
}
