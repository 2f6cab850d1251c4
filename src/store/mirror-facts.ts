/** The daemon's read side of the mirror: projects, task counts, last passes; retention. */
import type { Db } from './database.js';

/** Read-side queries of the daemon over the mirror file. */
export class MirrorFacts {
  private readonly countsStmt;
  private readonly lastPassStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.countsStmt = db.prepare<[], { id: string; taskCount: number }>(
      // The plan runs after every poll: the last pass's X-Total-Count, not a count of the rows.
      `SELECT p.id AS id, coalesce(s.total_count, 0) AS taskCount
       FROM projects p LEFT JOIN sync_state s ON s.project_id = p.id ORDER BY p.id`,
    );
    this.lastPassStmt = db
      .prepare<[string], string | null>('SELECT last_pass_at FROM sync_state WHERE project_id = ?')
      .pluck();
    this.pruneStmt = db.prepare('DELETE FROM task_history WHERE observed_at < ?');
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

  /** Deletes history older than `days` before `now`; returns the rows removed. */
  pruneHistory(now: number, days: number): number {
    const cutoff = new Date(now - days * 86_400_000).toISOString();
    return this.pruneStmt.run(cutoff).changes;
  }
}
