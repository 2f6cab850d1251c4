/** The per-project lists read whole on every pass: `members`, `resources` and `dependencies`. */
import type { JsonObject } from '../domain/index.js';
import type { Db } from './database.js';
import { dialectOf } from './db.js';
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
  /** PostgreSQL: the records a pass writes, in one statement (one round trip, not one each). */
  private readonly putAllStmt;
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
    this.putAllStmt =
      dialectOf(db) === 'postgres'
        ? db.prepare(
            `INSERT INTO ${kind} (project_id, id, ${columns.join(', ')}, data, synced_at)
             SELECT @projectId, r.id, ${columns.map((c) => `r.${c}`).join(', ')}, r.data::jsonb, @at
             FROM unnest(@ids::text[], ${columns.map((_, i) => `@column${i}::text[]`).join(', ')},
               @data::text[]) AS r (id, ${columns.join(', ')}, data)
             ON CONFLICT (project_id, id) DO UPDATE SET ${updates.join(', ')}`,
          )
        : undefined;
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
    await this.putAll(projectId, [{ record, data }], context);
  }

  /**
   * Writes records (each inserted or replaced), their fields noted once. SQLite: a statement
   * each, answered at once; PostgreSQL: one statement for them all.
   */
  private async putAll(
    projectId: string,
    writes: ReadonlyArray<{ record: IdentifiedRecord; data: string }>,
    context: WriteContext,
  ): Promise<void> {
    if (writes.length === 0) return;
    const typed = writes.map(({ record }) => this.fields.map((field) => textColumn(record[field])));
    if (this.putAllStmt !== undefined && writes.length > 1) {
      const columns = Object.fromEntries(
        this.fields.map((_, i) => [`column${i}`, typed.map((values) => values[i])]),
      );
      await this.putAllStmt.run({
        projectId,
        at: context.at,
        ids: writes.map(({ record }) => record.id),
        data: writes.map(({ data }) => data),
        ...columns,
      });
    } else {
      for (const [i, { record, data }] of writes.entries()) {
        await this.putStmt.run(projectId, record.id, ...typed[i]!, data, context.at);
      }
    }
    const records = writes.map(({ record }) => record);
    await context.fields.note(this.kind, records, context.at);
    context.tally.rows += writes.length;
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
    // By id, the last copy of a record listed twice: as writing them one by one would leave it.
    const writes = new Map<string, { record: IdentifiedRecord; data: string }>();
    for (const record of records) {
      const data = JSON.stringify(record);
      if (!keep.has(record.id) && !sameJson(held.get(record.id), data)) {
        writes.set(record.id, { record, data });
      }
      held.delete(record.id);
    }
    await this.putAll(projectId, [...writes.values()], context);
    touched.push(...writes.keys());
    for (const id of held.keys()) {
      if (!keep.has(id) && (await this.remove(projectId, id, context))) touched.push(id);
    }
    return touched;
  }
}
