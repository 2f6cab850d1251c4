/**
 * The wide views: one column per field the service sent in `data`, like a loader's schema
 * evolution. The writer notes each field and the kind of each value in `data_fields`, in the
 * transaction that writes the row (`data-fields.ts`); `refreshWideViews` then regenerates a
 * view whose fields changed (in the commit of a pass after a new field was noted, so a new field
 * appears after the pass that first saw it). Each column's declared type is inferred from every kind of value seen in the field.
 */
import type { Db, SqliteDb } from './database.js';
import { sqliteOf } from './sqlite-connection.js';

/** A mirrored table, its wide view, and the view's leading columns (column, table column). */
interface WideView {
  table: string;
  view: string;
  keys: ReadonlyArray<readonly [string, string]>;
}

/** The wide views, by the `record_kind` of `data_fields`. */
export const WIDE_VIEWS: Readonly<Record<string, WideView>> = {
  tasks: {
    table: 'tasks',
    view: 'v_tasks_all',
    keys: [
      ['task_id', 'id'],
      ['project_id', 'project_id'],
    ],
  },
  projects: { table: 'projects', view: 'v_projects_all', keys: [['project_id', 'id']] },
  members: {
    table: 'members',
    view: 'v_members_all',
    keys: [
      ['project_id', 'project_id'],
      ['member_id', 'id'],
    ],
  },
  resources: {
    table: 'resources',
    view: 'v_resources_all',
    keys: [
      ['project_id', 'project_id'],
      ['resource_id', 'id'],
    ],
  },
  dependencies: {
    table: 'dependencies',
    view: 'v_dependencies_all',
    keys: [
      ['project_id', 'project_id'],
      ['dependency_id', 'id'],
    ],
  },
};

/**
 * The kind of one `json_each` value: text is a date or a timestamp when it reads as one, JSON
 * true and false are booleans, arrays and objects are json; null, integer and real as they are.
 */
const VALUE_TYPE_SQL = `CASE j.type
    WHEN 'text' THEN CASE
      WHEN j.atom GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' THEN 'date'
      WHEN j.atom GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]*'
        THEN 'timestamp'
      ELSE 'text' END
    WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean'
    WHEN 'array' THEN 'json' WHEN 'object' THEN 'json'
    ELSE j.type END`;

/**
 * Notes the fields of the rows already held (a mirror made or migrated: the writer notes those
 * of every row it writes from then on, `data-fields.ts`) and creates the views.
 */
export function installWideViews(db: SqliteDb): void {
  noteHeldFields(db);
  refreshSqliteWideViews(db);
}

/** Notes in `data_fields` every field and kind of value in the `data` of the rows held. */
export function noteHeldFields(db: SqliteDb): void {
  for (const [kind, { table }] of Object.entries(WIDE_VIEWS)) {
    db.exec(`INSERT OR IGNORE INTO data_fields
  SELECT '${kind}', j.key, ${VALUE_TYPE_SQL}, min(t.synced_at)
  FROM ${table} t, json_each(t.data) j GROUP BY 2, 3`);
  }
}

/**
 * Makes each wide view match `data_fields`, replacing only the views whose columns changed.
 * Returns the names of the views it (re)created. Runs inside the caller's write transaction.
 */
export async function refreshWideViews(db: Db): Promise<string[]> {
  const sqlite = sqliteOf(db);
  if (sqlite !== undefined) return refreshSqliteWideViews(sqlite);
  // PostgreSQL's dialect keeps its views with a function of schema.pg.sql, in the same terms.
  await db.prepare('SELECT refresh_wide_views()').get();
  return [];
}

/** `refreshWideViews` of a SQLite mirror, synchronous (migrations run it too). */
function refreshSqliteWideViews(db: SqliteDb): string[] {
  const rows = db
    .prepare<[], { kind: string; field: string; types: string }>(
      `SELECT record_kind AS kind, field, group_concat(value_type) AS types
       FROM data_fields GROUP BY record_kind, field
       ORDER BY record_kind, lower(field), min(first_seen_at), field`,
    )
    .all();
  const existing = db.prepare<[string], string>(
    `SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?`,
  );
  const changed: string[] = [];
  for (const [kind, wide] of Object.entries(WIDE_VIEWS)) {
    const fields = rows.filter((row) => row.kind === kind);
    const sql = wideViewSql(wide, fields);
    if (existing.pluck().get(wide.view) === sql) continue;
    db.exec(`DROP VIEW IF EXISTS ${wide.view}`);
    db.exec(sql);
    changed.push(wide.view);
  }
  return changed;
}

/** The declared type of a field's column, from the kinds of value seen in it. */
export function declaredType(valueTypes: ReadonlySet<string>): string {
  const seen = [...valueTypes].filter((type) => type !== 'null');
  const only = (...types: string[]) =>
    seen.length > 0 && seen.every((type) => types.includes(type));
  if (only('boolean')) return 'BOOLEAN';
  if (only('integer')) return 'INTEGER';
  if (only('integer', 'real')) return 'REAL';
  if (only('date')) return 'DATE';
  if (only('date', 'timestamp')) return 'TIMESTAMP';
  return 'TEXT';
}

function wideViewSql(wide: WideView, fields: ReadonlyArray<{ field: string; types: string }>) {
  const used = new Set(wide.keys.map(([column]) => column.toLowerCase()));
  const columns = wide.keys.map(([column, source]) => `  t.${source} AS ${column}`);
  for (const { field, types } of fields) {
    // A JSON path cannot name a key holding a double quote: such a field stays in `data` only.
    if (field.includes('"')) continue;
    const name = uniqueName(field, used);
    const value = `(t.data ->> '$."${field.replaceAll("'", "''")}"')`;
    columns.push(
      `  ${typedValue(value, declaredType(new Set(types.split(','))))} AS ${quote(name)}`,
    );
  }
  return `CREATE VIEW ${wide.view} AS\nSELECT\n${columns.join(',\n')}\nFROM ${wide.table} t`;
}

/**
 * A field's value (`->>`: SQL text, number or NULL in SQLite, text in DuckDB) as its declared type
 * in both engines, which bind the same SQL: the cast gives DuckDB its type (a date through
 * `date()`, which both have), `column_types` gives SQLite's readers the declared type (see
 * schema.sql). A JSON true or false is 1 or 0 as SQLite holds booleans. Times stay text in
 * DuckDB: no function that both engines have turns text into a timestamp.
 */
function typedValue(value: string, type: string): string {
  const typed: Record<string, string> = {
    BOOLEAN: `CASE CAST(${value} AS TEXT) WHEN 'true' THEN 1 WHEN '1' THEN 1 WHEN 'false' THEN 0 WHEN '0' THEN 0 END`,
    INTEGER: `CAST(${value} AS BIGINT)`,
    REAL: `CAST(${value} AS DOUBLE)`,
    TEXT: `CAST(${value} AS TEXT)`,
    DATE: `date(${value})`,
  };
  return `(SELECT ${typed[type] ?? value} UNION ALL SELECT ${type.toLowerCase()} FROM column_types)`;
}

/** The field's name, or with `_2`, `_3`... when SQLite (case-blind) already has that column. */
function uniqueName(field: string, used: Set<string>): string {
  let name = field;
  for (let n = 2; used.has(name.toLowerCase()); n++) name = `${field}_${n}`;
  used.add(name.toLowerCase());
  return name;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
