/** `sync_state`: the bookkeeping of full passes, one row per project. */
import { connectionOf, type MirrorHandle } from './handle.js';

/** Where a project's first full pass (its baseline) stands. */
export type BackfillState = 'pending' | 'in_progress' | 'done';

/** One project's bookkeeping. Times are ISO-8601 UTC text. */
export interface SyncState {
  projectId: string;
  backfill: BackfillState;
  /** Pages read by the backfill in hand, else by the last consistent pass. */
  pagesRead: number;
  /** X-Total-Count seen by that pass. */
  totalCount: number | null;
  /** End of the last consistent full pass. */
  lastPassAt: string | null;
  /** Last time a pass or an event changed a mirrored row of the project. */
  lastChangeAt: string | null;
  /** ETag of get project, sent as If-None-Match next time. */
  projectEtag: string | null;
  /** Why the last pass failed, one line; null once a pass succeeds. */
  lastError: string | null;
  lastErrorAt: string | null;
}

/** What a consistent pass records when it commits. */
export interface PassRecord {
  at: string;
  pagesRead: number;
  totalCount: number;
  /** A new project ETag, or undefined to keep the one held. */
  projectEtag: string | undefined;
  /** Whether the pass changed any mirrored row. */
  changed: boolean;
}

const COLUMNS = `project_id AS projectId, backfill, pages_read AS pagesRead,
  total_count AS totalCount, last_pass_at AS lastPassAt, last_change_at AS lastChangeAt,
  project_etag AS projectEtag, last_error AS lastError, last_error_at AS lastErrorAt`;

/**
 * PostgreSQL: the statement (a data-modifying CTE's body) recording how far `@projectId`'s
 * backfill has read (`@lastPage`; a null `@totalCount` keeps the one held) when `condition`
 * holds; for a statement that writes more than the progress (`backfillProgress` otherwise).
 */
export function pgBackfillProgress(condition: string): string {
  return `UPDATE sync_state SET pages_read = @lastPage,
    total_count = coalesce(@totalCount::integer, total_count)
  WHERE project_id = @projectId AND ${condition}`;
}

/** The one writer of `sync_state`. */
export class SyncStateRepository {
  private readonly getStmt;
  private readonly listStmt;
  private readonly beginStmt;
  private readonly progressStmt;
  private readonly completedStmt;
  private readonly failedStmt;
  private readonly changedStmt;
  private readonly removeStmt;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.getStmt = db.prepare<[string], SyncState>(
      `SELECT ${COLUMNS} FROM sync_state WHERE project_id = ?`,
    );
    this.listStmt = db.prepare<[], SyncState>(
      `SELECT ${COLUMNS} FROM sync_state ORDER BY project_id`,
    );
    this.beginStmt = db.prepare(
      `INSERT INTO sync_state (project_id, backfill) VALUES (?, 'in_progress')
       ON CONFLICT (project_id) DO UPDATE SET backfill = 'in_progress'`,
    );
    this.progressStmt = db.prepare(
      'UPDATE sync_state SET pages_read = ?, total_count = coalesce(?, sync_state.total_count) WHERE project_id = ?',
    );
    this.completedStmt = db.prepare(
      `INSERT INTO sync_state (project_id, backfill, pages_read, total_count, last_pass_at,
         last_change_at, project_etag)
       VALUES (@projectId, 'done', @pagesRead, @totalCount, @at, @changeAt, @projectEtag)
       ON CONFLICT (project_id) DO UPDATE SET backfill = 'done', pages_read = @pagesRead,
         total_count = @totalCount, last_pass_at = @at,
         last_change_at = coalesce(@changeAt, sync_state.last_change_at),
         project_etag = coalesce(@projectEtag, sync_state.project_etag), last_error = NULL,
         last_error_at = NULL`,
    );
    this.failedStmt = db.prepare(
      `INSERT INTO sync_state (project_id, last_error, last_error_at) VALUES (?, ?, ?)
       ON CONFLICT (project_id) DO UPDATE SET last_error = excluded.last_error,
         last_error_at = excluded.last_error_at`,
    );
    this.changedStmt = db.prepare(
      `INSERT INTO sync_state (project_id, last_change_at) VALUES (?, ?)
       ON CONFLICT (project_id) DO UPDATE SET last_change_at = excluded.last_change_at`,
    );
    this.removeStmt = db.prepare('DELETE FROM sync_state WHERE project_id = ?');
  }

  /** A project's bookkeeping, if it has any. */
  async get(projectId: string): Promise<SyncState | undefined> {
    return await this.getStmt.get(projectId);
  }

  /** Every project's bookkeeping, by project id. */
  async list(): Promise<SyncState[]> {
    return await this.listStmt.all();
  }

  /** True once the project's first full pass committed: from then on history is recorded. */
  async hasBaseline(projectId: string): Promise<boolean> {
    return (await this.getStmt.get(projectId))?.backfill === 'done';
  }

  /** Marks the project's first full pass as under way. */
  async beginBackfill(projectId: string): Promise<void> {
    await this.beginStmt.run(projectId);
  }

  /** Records how far the backfill in hand has read (a null total keeps the one held). */
  async backfillProgress(
    projectId: string,
    pagesRead: number,
    totalCount: number | null,
  ): Promise<void> {
    await this.progressStmt.run(pagesRead, totalCount, projectId);
  }

  /** Records a consistent pass: the backfill is done, the error cleared. */
  async passCompleted(projectId: string, pass: PassRecord): Promise<void> {
    await this.completedStmt.run({
      projectId,
      pagesRead: pass.pagesRead,
      totalCount: pass.totalCount,
      at: pass.at,
      changeAt: pass.changed ? pass.at : null,
      projectEtag: pass.projectEtag ?? null,
    });
  }

  /** Records why a pass failed. */
  async passFailed(projectId: string, error: string, at: string): Promise<void> {
    await this.failedStmt.run(projectId, error, at);
  }

  /** Records that an event changed a mirrored row of the project. */
  async changed(projectId: string, at: string): Promise<void> {
    await this.changedStmt.run(projectId, at);
  }

  /** Forgets a project's bookkeeping. */
  async remove(projectId: string): Promise<void> {
    await this.removeStmt.run(projectId);
  }
}
