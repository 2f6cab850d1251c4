/**
 * Field discovery for the wide views, in bulk: the writer hands over the records it writes, each
 * record's keys and value kinds are compared with the set already known (loaded from
 * `data_fields` once per connection), and only what is new is written, in the writer's
 * transaction. A new field marks the views for refresh, which the next pass commit does.
 */
import type { Db } from './database.js';
import { dialectOf } from './db.js';

/** A record kind of `data_fields`: the mirrored table its records live in. */
export type FieldKind = 'projects' | 'tasks' | 'members' | 'resources' | 'dependencies';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
/** From here `JSON.stringify` writes a number with an exponent, which SQLite reads as real. */
const EXPONENT_FROM = 1e21;
const DIGIT_0 = 48;
const DIGIT_9 = 57;

/**
 * The kind of a JSON value as `data_fields` records it, as SQLite's `json_each` would type the
 * value in the stored text: text is a date or a timestamp when it reads as one, true and false
 * are booleans, arrays and objects json; null, integer and real as they are.
 */
export function valueKind(value: unknown): string {
  switch (typeof value) {
    case 'string': {
      // Most text does not begin with a digit: no pattern to try.
      const first = value.charCodeAt(0);
      if (!(first >= DIGIT_0 && first <= DIGIT_9)) return 'text';
      if (DATE.test(value)) return 'date';
      return TIMESTAMP.test(value) ? 'timestamp' : 'text';
    }
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < EXPONENT_FROM ? 'integer' : 'real';
    case 'object':
      return value === null ? 'null' : 'json';
    default:
      return 'null';
  }
}

/** A field of a record with the kind of a value it holds (`valueKind`). */
export type FieldShape = readonly [field: string, kind: string];

/** Each field of `records` with each kind of value it holds, once, in the order first met. */
export function fieldShapes(records: ReadonlyArray<object>): FieldShape[] {
  const seen = new Map<string, Set<string>>();
  const shapes: FieldShape[] = [];
  for (const record of records) {
    for (const field in record) {
      const kind = valueKind((record as Record<string, unknown>)[field]);
      let kinds = seen.get(field);
      if (kinds === undefined) seen.set(field, (kinds = new Set()));
      if (kinds.has(kind)) continue;
      kinds.add(kind);
      shapes.push([field, kind]);
    }
  }
  return shapes;
}

/** The fields and value kinds the mirror knows, by record kind; one per connection. */
export class FieldCatalog {
  private readonly db: Db;
  private readonly insertStmt;
  private readonly sqlite: boolean;
  /** Record kind -> field -> value kinds. */
  private known: Map<string, Map<string, Set<string>>> | undefined;
  private grown = false;

  constructor(db: Db) {
    this.db = db;
    this.sqlite = dialectOf(db) === 'sqlite';
    // The new fields of a write in one statement (one round trip to a PostgreSQL server, not one
    // a field): SQLite takes them as one JSON array of pairs, PostgreSQL as two arrays.
    this.insertStmt = db.prepare(
      `INSERT INTO data_fields (record_kind, field, value_type, first_seen_at)
       ${
         this.sqlite
           ? `SELECT @kind, json_extract(value, '$[0]'), json_extract(value, '$[1]'), @at
              FROM json_each(@shapes) WHERE true`
           : `SELECT @kind, s.field, s.type, @at
              FROM unnest(@fields::text[], @types::text[]) AS s (field, type)`
       }
       ON CONFLICT DO NOTHING`,
    );
  }

  /**
   * Notes the fields of `records` of `kind`, written at `at`, inside the caller's transaction:
   * writes a `data_fields` row for each field and kind of value this connection did not know.
   */
  async note(kind: FieldKind, records: ReadonlyArray<object>, at: string): Promise<void> {
    await this.noteShapes(kind, fieldShapes(records), at);
  }

  /** `note` for the shapes of records (`fieldShapes`), found where they were parsed. */
  async noteShapes(kind: FieldKind, shapes: readonly FieldShape[], at: string): Promise<void> {
    const fields = await this.fieldsOf(kind);
    const fresh: FieldShape[] = [];
    for (const shape of shapes) {
      const [field, type] = shape;
      let types = fields.get(field);
      if (types === undefined) fields.set(field, (types = new Set()));
      if (types.has(type)) continue;
      types.add(type);
      fresh.push(shape);
    }
    if (fresh.length === 0) return;
    await this.insertStmt.run(
      this.sqlite
        ? { kind, at, shapes: JSON.stringify(fresh) }
        : { kind, at, fields: fresh.map(([field]) => field), types: fresh.map(([, type]) => type) },
    );
    // New to this connection: written here, or by another connection since the load (whose
    // views this connection's next commit makes sure of too).
    this.grown = true;
  }

  /** True when `shapes` of `kind` hold a field or kind of value this connection does not know. */
  async wouldGrow(kind: FieldKind, shapes: readonly FieldShape[]): Promise<boolean> {
    const fields = await this.fieldsOf(kind);
    return shapes.some(([field, type]) => !fields.get(field)?.has(type));
  }

  /** True once if a field was noted since the last call: the wide views need a refresh. */
  takeGrowth(): boolean {
    const grown = this.grown;
    this.grown = false;
    return grown;
  }

  /** Forgets what is known (a transaction that noted fields rolled back): loaded again on use. */
  forget(): void {
    this.known = undefined;
    this.grown = true;
  }

  private async fieldsOf(kind: FieldKind): Promise<Map<string, Set<string>>> {
    const known = (this.known ??= await this.load());
    let fields = known.get(kind);
    if (fields === undefined) known.set(kind, (fields = new Map()));
    return fields;
  }

  private async load(): Promise<Map<string, Map<string, Set<string>>>> {
    const rows = await this.db
      .prepare<[], { kind: string; field: string; type: string }>(
        'SELECT record_kind AS kind, field, value_type AS type FROM data_fields',
      )
      .all();
    const known = new Map<string, Map<string, Set<string>>>();
    for (const { kind, field, type } of rows) {
      let fields = known.get(kind);
      if (fields === undefined) known.set(kind, (fields = new Map()));
      let types = fields.get(field);
      if (types === undefined) fields.set(field, (types = new Set()));
      types.add(type);
    }
    return known;
  }
}
