/** The `projects` table: one row per mirrored project. */
import { connectionOf, type MirrorHandle } from './handle.js';
import type { Project } from '../domain/index.js';
import { sameJson, textColumn } from './values.js';
import type { WriteContext } from './write-context.js';

/** A mirrored project as `status` lists it. */
export interface ProjectSummary {
  id: string;
  name: string;
  readOnlyReason: string | null;
  tasks: number;
}

/** Reads and writes projects. Deleting one deletes its tasks and lists (foreign keys cascade). */
export class ProjectsRepository {
  private readonly dataStmt;
  private readonly putStmt;
  private readonly deleteStmt;
  private readonly idsStmt;
  private readonly summariesStmt;
  private readonly readOnlyStmt;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.dataStmt = db.prepare<[string], string>('SELECT data FROM projects WHERE id = ?');
    this.dataStmt.pluck();
    this.putStmt = db.prepare(
      `INSERT INTO projects (id, name, active, read_only_reason, data, synced_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, active = excluded.active,
         read_only_reason = excluded.read_only_reason, data = excluded.data,
         synced_at = excluded.synced_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM projects WHERE id = ?');
    this.idsStmt = db.prepare<[], string>('SELECT id FROM projects ORDER BY id');
    this.summariesStmt = db.prepare<[], ProjectSummary>(
      `SELECT p.id, p.name, p.read_only_reason AS readOnlyReason,
         (SELECT count(*) FROM tasks t WHERE t.project_id = p.id) AS tasks
       FROM projects p ORDER BY p.id`,
    );
    this.idsStmt.pluck();
    this.readOnlyStmt = db.prepare<[string], string | null>(
      'SELECT read_only_reason FROM projects WHERE id = ?',
    );
    this.readOnlyStmt.pluck();
  }

  /** The JSON text the mirror holds for a project, if it mirrors it. */
  async data(projectId: string): Promise<string | undefined> {
    return await this.dataStmt.get(projectId);
  }

  /** Writes a project unless the mirror holds exactly this JSON already; true when it wrote. */
  async put(project: Project, context: WriteContext): Promise<boolean> {
    const data = JSON.stringify(project);
    if (sameJson(await this.dataStmt.get(project.id), data)) return false;
    const active = typeof project.active === 'boolean' ? Number(project.active) : null;
    const reason = textColumn(project.readOnlyReason);
    await this.putStmt.run(project.id, textColumn(project.name), active, reason, data, context.at);
    await context.fields.note('projects', [project], context.at);
    context.tally.rows += 1;
    return true;
  }

  /** Deletes a project with everything mirrored under it. */
  async remove(projectId: string): Promise<void> {
    await this.deleteStmt.run(projectId);
  }

  /** Why the mirrored project is read-only; null when it is writable or not mirrored. */
  async readOnlyReason(projectId: string): Promise<string | null> {
    const reason = await this.readOnlyStmt.get(projectId);
    return reason === undefined || reason === null || reason === '' ? null : reason;
  }

  /** Every mirrored project with its name, read-only reason and task count, by id. */
  async summaries(): Promise<ProjectSummary[]> {
    return await this.summariesStmt.all();
  }

  /** The ids of every mirrored project. */
  async ids(): Promise<string[]> {
    return await this.idsStmt.all();
  }
}
