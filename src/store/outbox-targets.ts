/**
 * The mirror's present copy of what an outbox item targets, for the check before sending: a
 * task's or resource's JSON object, or a project's list of dependencies, read as the trigger
 * `outbox_base` (schema.sql) reads it when the item is queued.
 */
import { connectionOf, type MirrorHandle } from './handle.js';

/** The record as the mirror holds it now: its JSON value, or absent. */
export type TargetRecord = { record: 'absent' } | { record: 'present'; data: unknown };

interface DependencyRow {
  predecessorId: string | null;
  successorId: string | null;
  type: string | null;
}

/** Reads the targets of outbox items from the mirrored tables. */
export class OutboxTargets {
  private readonly taskStmt;
  private readonly resourceStmt;
  private readonly dependenciesStmt;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.taskStmt = db.prepare<[string, string], { data: unknown }>(
      'SELECT data FROM tasks WHERE project_id = ? AND id = ?',
    );
    this.resourceStmt = db.prepare<[string, string], { data: unknown }>(
      'SELECT data FROM resources WHERE project_id = ? AND id = ?',
    );
    this.dependenciesStmt = db.prepare<[string], DependencyRow>(
      `SELECT predecessor_id AS predecessorId, successor_id AS successorId, type
       FROM dependencies WHERE project_id = ? ORDER BY id`,
    );
  }

  /** What `op` targets in project `projectId` (`targetId` for a task or resource). */
  async read(op: string, projectId: string, targetId: string | null): Promise<TargetRecord> {
    if (op === 'dependency.set') {
      return {
        record: 'present',
        data: { dependencies: await this.dependenciesStmt.all(projectId) },
      };
    }
    if (targetId === null) return { record: 'absent' };
    const statement = op.startsWith('resource.') ? this.resourceStmt : this.taskStmt;
    const row = await statement.get(projectId, targetId);
    if (row === undefined) return { record: 'absent' };
    return {
      record: 'present',
      data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
    };
  }
}
