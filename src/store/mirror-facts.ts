/** The daemon's read side of the mirror: projects, task counts, last passes; retention. */
import type { Db } from './database.js';

/** Read-side queries of the daemon over the mirror file. */
export class MirrorFacts {
  private readonly idsStmt;
  private readonly countsStmt;
  private readonly lastPassStmt;
  private readonly pruneStmt;
  private readonly lagStmt;

  constructor(db: Db) {
    this.idsStmt = db.prepare<[], string>('SELECT id FROM projects ORDER BY id').pluck();
    this.countsStmt = db.prepare<[], { id: string; taskCount: number }>(
      // The plan runs after every poll: the last pass's X-Total-Count, not a count of the rows.
      `SELECT p.id AS id, coalesce(s.total_count, 0) AS taskCount
       FROM projects p LEFT JOIN sync_state s ON s.project_id = p.id ORDER BY p.id`,
    );
    this.lastPassStmt = db
      .prepare<[string], string | null>('SELECT last_pass_at FROM sync_state WHERE project_id = ?')
      .pluck();
    this.pruneStmt = db.prepare('DELETE FROM task_history WHERE observed_at < ?');
    this.lagStmt = db.prepare<[], { projectId: string; at: string | null }>(
      `SELECT p.id AS projectId, max(coalesce(s.last_pass_at, ''), coalesce(s.last_change_at, '')) AS at
       FROM projects p LEFT JOIN sync_state s ON s.project_id = p.id`,
    );
  }

  projectIds(): string[] {
    return this.idsStmt.all();
  }

  /** Each mirrored project (only `only` when given) with its task count. */
  taskCounts(only?: readonly string[]): { id: string; taskCount: number }[] {
    const all = this.countsStmt.all();
    return only ? all.filter((project) => only.includes(project.id)) : all;
  }

  /** End of the project's last consistent pass, in ms, if any. */
  lastPassAt(projectId: string): number | undefined {
    const at = this.lastPassStmt.get(projectId);
    return at ? Date.parse(at) : undefined;
  }

  /** Seconds since each project was last known current (a consistent pass or an applied event). */
  lagSeconds(now: number): Map<string, number> {
    const lags = new Map<string, number>();
    for (const row of this.lagStmt.all()) {
      const at = row.at ? Date.parse(row.at) : Number.NaN;
      if (!Number.isNaN(at)) lags.set(row.projectId, Math.max(0, (now - at) / 1000));
    }
    return lags;
  }

  /** Deletes history older than `days` before `now`; returns the rows removed. */
  pruneHistory(now: number, days: number): number {
    const cutoff = new Date(now - days * 86_400_000).toISOString();
    return this.pruneStmt.run(cutoff).changes;
  }
}
