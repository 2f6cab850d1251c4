/** Reads of the `tasks` table; its one writer is `TaskWriter` (`task-writer.ts`). */
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { sameJson } from './values.js';

/** What the mirror holds of one task. */
export interface StoredTask {
  projectId: string;
  name: string | null;
  updatedAt: string | null;
  /** The service's JSON text of the task. */
  data: string;
}

/** Reads tasks: one, several, a project's count, and whether a page differs from the mirror. */
export class TaskReads {
  private readonly findStmt;
  private readonly countStmt;
  private readonly differsStmt;
  private readonly findAllStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string], StoredTask>(
      `SELECT project_id AS projectId, name, updated_at AS updatedAt, data FROM tasks WHERE id = ?`,
    );
    this.countStmt = db.prepare<[string], number>(
      'SELECT count(*) FROM tasks WHERE project_id = ?',
    );
    this.countStmt.pluck();
    const postgres = dialectOf(db) === 'postgres';
    this.differsStmt = postgres
      ? db.prepare(
          `SELECT 1 FROM unnest(@ids::text[], @texts::text[]) AS page (id, data)
           LEFT JOIN tasks t ON t.id = page.id
           WHERE t.id IS NULL OR t.project_id <> @projectId OR t.data <> page.data::jsonb
           LIMIT 1`,
        )
      : undefined;
    this.findAllStmt = postgres
      ? db.prepare(
          `SELECT id, project_id AS projectId, name, updated_at AS updatedAt, data FROM tasks
           WHERE id = ANY (@ids::text[])`,
        )
      : undefined;
  }

  /** The mirror's copy of a task, if any. */
  async find(taskId: string): Promise<StoredTask | undefined> {
    return await this.findStmt.get(taskId);
  }

  /**
   * True when any of `rows` (a page's tasks and their JSON texts) is not in the mirror as is:
   * missing, of another project, or with other data. On PostgreSQL one statement for the page,
   * compared there (`jsonb`), instead of a round trip and two parses per task.
   */
  async anyDiffers(
    projectId: string,
    rows: ReadonlyArray<readonly [string, string]>,
  ): Promise<boolean> {
    if (rows.length === 0) return false;
    if (this.differsStmt === undefined) {
      for (const [taskId, text] of rows) {
        const held = await this.findStmt.get(taskId);
        if (held === undefined || held.projectId !== projectId || !sameJson(held.data, text)) {
          return true;
        }
      }
      return false;
    }
    const ids = rows.map(([taskId]) => taskId);
    const texts = rows.map(([, text]) => text);
    return (await this.differsStmt.get({ projectId, ids, texts })) !== undefined;
  }

  /**
   * The mirror's copies of the tasks `ids`, in their order (undefined: not held). On PostgreSQL
   * one statement for them all, instead of one round trip per task.
   */
  async findEach(ids: readonly string[]): Promise<Array<StoredTask | undefined>> {
    if (this.findAllStmt === undefined) {
      const held: Array<StoredTask | undefined> = [];
      for (const id of ids) held.push(await this.findStmt.get(id));
      return held;
    }
    const stored = (await this.findAllStmt.all({ ids })) as Array<StoredTask & { id: string }>;
    const byId = new Map(stored.map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id));
  }

  /** How many tasks the mirror holds for a project. */
  async count(projectId: string): Promise<number> {
    return (await this.countStmt.get(projectId)) ?? 0;
  }
}
