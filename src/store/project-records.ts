/** The per-project lists read whole on every pass: `members`, `resources` and `dependencies`. */
import type { JsonObject } from '../domain/index.js';
import type { Db } from './database.js';
import { sameJson, textColumn } from './values.js';
import type { WriteContext } from './write-context.js';

/** The tables of per-project lists. */
export type RecordKind = 'members' | 'resources' | 'dependencies';

/** A record of such a list: any JSON object with a string id. */
export type IdentifiedRecord = JsonObject & { id: string };

/** Each table's typed columns and the JSON field each one comes from. */
const TYPED_COLUMNS: Record<RecordKind, ReadonlyArray<readonly [string, string]>> = {
  members: [
    ['name', 'name'],
    ['kind', 'kind'],
  ],
  resources: [['name', 'name']],
  dependencies: [
    ['predecessor_id', 'predecessorId'],
    ['successor_id', 'successorId'],
    ['type', 'type'],
  ],
};

/** Reads and writes one kind of per-project list. */
export class ProjectRecordsRepository {
  readonly kind: RecordKind;
  private readonly fields: readonly string[];
  private readonly listStmt;
  private readonly dataStmt;
  private readonly putStmt;
  private readonly deleteStmt;

  constructor(db: Db, kind: RecordKind) {
    this.kind = kind;
    const typed = TYPED_COLUMNS[kind];
    this.fields = typed.map(([, field]) => field);
    const columns = typed.map(([column]) => column);
    const updates = [...columns, 'data', 'synced_at'].map((c) => `${c} = excluded.${c}`);
    this.listStmt = db.prepare<[string], { id: string; data: string }>(
      `SELECT id, data FROM ${kind} WHERE project_id = ?`,
    );
    this.dataStmt = db.prepare<[string, string], string>(
      `SELECT data FROM ${kind} WHERE project_id = ? AND id = ?`,
    );
    this.dataStmt.pluck();
    this.putStmt = db.prepare(
      `INSERT INTO ${kind} (project_id, id, ${columns.join(', ')}, data, synced_at)
       VALUES (?, ?, ${columns.map(() => '?').join(', ')}, ?, ?)
       ON CONFLICT (project_id, id) DO UPDATE SET ${updates.join(', ')}`,
    );
    this.deleteStmt = db.prepare(`DELETE FROM ${kind} WHERE project_id = ? AND id = ?`);
  }

  /** The JSON text of each record the mirror holds for a project, by id. */
  async dataById(projectId: string): Promise<Map<string, string>> {
    const rows = await this.listStmt.all(projectId);
    return new Map(rows.map((row) => [row.id, row.data]));
  }

  /** The JSON text of one record the mirror holds, if any. */
  async data(projectId: string, id: string): Promise<string | undefined> {
    return await this.dataStmt.get(projectId, id);
  }

  /** Writes one record (inserted or replaced). */
  async put(
    projectId: string,
    record: IdentifiedRecord,
    data: string,
    context: WriteContext,
  ): Promise<void> {
    const typed = this.fields.map((field) => textColumn(record[field]));
    await this.putStmt.run(projectId, record.id, ...typed, data, context.at);
    await context.fields.note(this.kind, [record], context.at);
    context.tally.rows += 1;
  }

  /** Deletes one record; true if it was there. */
  async remove(projectId: string, id: string, context: WriteContext): Promise<boolean> {
    const removed = (await this.deleteStmt.run(projectId, id)).changes > 0;
    if (removed) context.tally.rows += 1;
    return removed;
  }

  /**
   * Makes the project's list exactly `records`, writing only the records whose JSON changed and
   * deleting those gone, except the ids in `keep`, which stay as they are. Returns the ids it
   * wrote or deleted.
   */
  async replace(
    projectId: string,
    records: readonly IdentifiedRecord[],
    context: WriteContext,
    keep: ReadonlySet<string> = new Set(),
  ): Promise<string[]> {
    const touched: string[] = [];
    const held = await this.dataById(projectId);
    for (const record of records) {
      const data = JSON.stringify(record);
      if (!keep.has(record.id) && !sameJson(held.get(record.id), data)) {
        await this.put(projectId, record, data, context);
        touched.push(record.id);
      }
      held.delete(record.id);
    }
    for (const id of held.keys()) {
      if (!keep.has(id) && (await this.remove(projectId, id, context))) touched.push(id);
    }
    return touched;
  }
}
