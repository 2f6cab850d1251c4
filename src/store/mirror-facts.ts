/** The daemon's read side of the mirror: projects, task counts, last passes; retention. */
import { ChangesRepository } from './changes.js';
import { connectionOf, type MirrorHandle } from './handle.js';
import { reclaimFreePages } from './space.js';
import { TaskHistoryRepository } from './task-history.js';

/** A project's times as `sync_state` holds them. */
export interface ProjectTimesRow {
  projectId: string;
  lastPassAt: string | null;
  lastChangeAt: string | null;
}

/** Read-side queries of the daemon over the mirror file. */
export class MirrorFacts {
  private readonly countsStmt;
  private readonly lastPassStmt;
  private readonly history: TaskHistoryRepository;
  private readonly timesStmt;
  private readonly changes;
  private readonly mirror: MirrorHandle;

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
    const db = connectionOf(mirror);
    this.changes = new ChangesRepository(mirror);
    this.countsStmt = db.prepare<[], { id: string; taskCount: number }>(
      // The plan runs after every poll: the last pass's X-Total-Count, not a count of the rows.
      `SELECT p.id AS id, coalesce(s.total_count, 0) AS taskCount
       FROM projects p LEFT JOIN sync_state s ON s.project_id = p.id ORDER BY p.id`,
    );
    this.lastPassStmt = db
      .prepare<[string], string | null>('SELECT last_pass_at FROM sync_state WHERE project_id = ?')
      .pluck();
    this.history = new TaskHistoryRepository(db);
    this.timesStmt = db.prepare<[], ProjectTimesRow>(
      `SELECT project_id AS projectId, last_pass_at AS lastPassAt, last_change_at AS lastChangeAt
       FROM sync_state ORDER BY project_id`,
    );
  }

  /** Each project's last consistent pass and last change, as stored (ISO times or null). */
  async projectTimes(): Promise<ProjectTimesRow[]> {
    return await this.timesStmt.all();
  }

  /**
   * What the daemon's plan and poll schedule read: each mirrored project's task count and the
   * end of its last consistent pass (ms), in one read.
   */
  async planFacts(): Promise<
    Array<{ id: string; taskCount: number; lastPassAt: number | undefined }>
  > {
    const times = await this.timesStmt.all();
    const passes = new Map(times.map((row) => [row.projectId, row.lastPassAt]));
    return (await this.countsStmt.all()).map((project) => {
      const at = passes.get(project.id);
      return { ...project, lastPassAt: at ? Date.parse(at) : undefined };
    });
  }

  /** Each mirrored project (only `only` when given) with its task count. */
  async taskCounts(only?: readonly string[]): Promise<{ id: string; taskCount: number }[]> {
    const all = await this.countsStmt.all();
    return only ? all.filter((project) => only.includes(project.id)) : all;
  }

  /** End of the project's last consistent pass, in ms, if any. */
  async lastPassAt(projectId: string): Promise<number | undefined> {
    const at = await this.lastPassStmt.get(projectId);
    return at ? Date.parse(at) : undefined;
  }

  /** Deletes history older than `days` before `now`; returns the rows removed. */
  async pruneHistory(now: number, days: number): Promise<number> {
    return await this.history.prune(now, days);
  }

  /** Deletes the change feed's rows older than `days` before `now`; returns the rows removed. */
  async pruneChanges(now: number, days: number): Promise<number> {
    return await this.changes.prune(now, days);
  }

  /** Gives the file's free pages back after a prune (`space.ts`); returns how many. */
  reclaimSpace(): Promise<number> {
    return Promise.resolve(reclaimFreePages(this.mirror));
  }
}
