/**
 * schema.pg.sql in a real PostgreSQL database, filled with a copy of a SQLite mirror's rows, and
 * both engines' rows in one comparable form (booleans 0/1, dates YYYY-MM-DD, instants as ISO
 * strings with milliseconds, integers as numbers).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, onTestFinished } from 'vitest';
import type { SqliteDb } from '../../../src/store/database.js';

const SCHEMA = readFileSync(new URL('../../../schema.pg.sql', import.meta.url), 'utf8');
const DATE_OID = 1082;
const BIGINT_OID = 20;
const MAX_PARAMETERS = 30_000;

/**
 * SQLite's data_fields first (the triggers then find every field noted, with SQLite's
 * first_seen_at), then the mirrored tables, parents before children; the rest in any order.
 */
const TABLE_ORDER = [
  'data_fields',
  'projects',
  'tasks',
  'task_assignees',
  'members',
  'resources',
  'dependencies',
];

/** A value as both engines' rows are compared. */
export type Plain = string | number | null;

/** A row as compared: column name to value, in the view's column order. */
export type PlainRow = Record<string, Plain>;

/** A client of the database at `url`, with dates as text and bigints as numbers; closed after the test. */
export async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === DATE_OID) return (text: string) => text;
        if (oid === BIGINT_OID) return (text: string) => Number(text);
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  onTestFinished(() => client.end());
  return client;
}

/**
 * A new database that sorts text by ICU's en-US rules (where 'm' sorts before 'Z'), for views
 * that must order lists in bytes as SQLite does whatever the database's collation.
 */
export async function icuDatabase(adminUrl: string): Promise<string> {
  const name = `icu_${process.pid}_${(icuDatabases += 1)}`;
  const admin = await connect(adminUrl);
  await admin.query(
    `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`,
  );
  return adminUrl.replace(/\/postgres$/, `/${name}`);
}
let icuDatabases = 0;

/**
 * The tables only SQLite's mirror has: a backfill's pages kept by reference, and the texts they
 * need once their tasks change (PostgreSQL keeps every page's rows).
 */
export const SQLITE_ONLY_TABLES: readonly string[] = ['task_page_refs', 'task_page_originals'];

/** Creates the schema `projmirror` and applies schema.pg.sql in it, as the adapter does. */
export async function applySchema(client: pg.Client): Promise<void> {
  await client.query('CREATE SCHEMA projmirror');
  await client.query('SET search_path = projmirror');
  await client.query('BEGIN');
  await client.query(SCHEMA);
  await client.query('COMMIT');
}

/**
 * The tables of a SQLite mirror to copy: every one but SQLite's own, the FTS5 index's, the
 * change feed's (each engine's triggers write its own feed as the rows are copied) and those of
 * the pages SQLite keeps by reference (`SQLITE_ONLY_TABLES`).
 */
export function sqliteTables(db: SqliteDb): string[] {
  const names = db
    .prepare<[], string>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
       AND name NOT LIKE 'tasks_fts%' AND name NOT IN ('column_types', 'changes', 'change_batch')`,
    )
    .pluck()
    .all()
    .filter((name) => !SQLITE_ONLY_TABLES.includes(name));
  const rank = (name: string) => (TABLE_ORDER.includes(name) ? TABLE_ORDER.indexOf(name) : 99);
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Copies every row of `tables` (default: all) from the SQLite mirror into PostgreSQL. */
export async function copyRows(db: SqliteDb, client: pg.Client, tables = sqliteTables(db)) {
  for (const table of tables) {
    const columns = db.pragma(`table_info(${table})`) as Array<{ name: string; type: string }>;
    const rows = db.prepare(`SELECT * FROM ${table}`).raw().all() as unknown[][];
    const perBatch = Math.floor(MAX_PARAMETERS / columns.length);
    for (let start = 0; start < rows.length; start += perBatch) {
      const batch = rows.slice(start, start + perBatch);
      const values: unknown[] = [];
      const tuples = batch.map((row) => {
        const marks = row.map((value, i) => {
          const boolean = columns[i]!.type === 'BOOLEAN' && value !== null;
          values.push(boolean ? value === 1 : value);
          return `$${values.length}`;
        });
        return `(${marks.join(', ')})`;
      });
      const names = columns.map((c) => `"${c.name}"`).join(', ');
      await client.query(`INSERT INTO ${table} (${names}) VALUES ${tuples.join(', ')}`, values);
    }
  }
}

/** How values of TEXT columns compare: exactly, or as JSON values when they are JSON arrays or objects. */
export type TextMode = 'exact' | 'json';

/** Expects each view to give the same columns and rows in both engines. */
export async function expectSameRows(
  db: SqliteDb,
  client: pg.Client,
  views: string[],
  text?: TextMode,
): Promise<void> {
  for (const view of views) {
    const expected = sqliteRows(db, view, text);
    const actual = await postgresRows(client, view, text);
    expect(actual.columns, view).toEqual(expected.columns);
    expect(actual.rows, view).toEqual(expected.rows);
  }
}

/** A view's rows from SQLite, normalized, sorted; and its column names. */
export function sqliteRows(db: SqliteDb, view: string, text: TextMode = 'exact') {
  const declared = /^\w+$/.test(view) ? db.pragma(`table_info(${view})`) : [];
  const types = new Map(
    (declared as Array<{ name: string; type: string }>).map((c) => [c.name, c.type]),
  );
  const statement = db.prepare(`SELECT * FROM ${view}`);
  const columns = statement.columns().map((c) => c.name);
  const rows = (statement.all() as Array<Record<string, unknown>>).map((row) =>
    normalize(row, columns, (column, value) => {
      const type = types.get(column);
      if (type === 'TIMESTAMP' && typeof value === 'string') return instant(value);
      return plain(value, text);
    }),
  );
  return { columns, rows: sorted(rows) };
}

/** A view's rows from PostgreSQL, normalized, sorted; and its column names. */
export async function postgresRows(client: pg.Client, view: string, text: TextMode = 'exact') {
  const result = await client.query<Record<string, unknown>>(`SELECT * FROM ${view}`);
  const columns = result.fields.map((field) => field.name);
  const rows = result.rows.map((row) => normalize(row, columns, (_, value) => plain(value, text)));
  return { columns, rows: sorted(rows) };
}

function normalize(
  row: Record<string, unknown>,
  columns: string[],
  convert: (column: string, value: unknown) => Plain,
): PlainRow {
  return Object.fromEntries(columns.map((column) => [column, convert(column, row[column])]));
}

function plain(value: unknown, text: TextMode): Plain {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return text === 'json' ? canonicalJson(value) : value;
  if (typeof value === 'object') return JSON.stringify(value); // json: parsed by the driver
  throw new Error(`unexpected value ${String(value)}`);
}

/** An ISO-8601 text as the instant it names (UTC when it names no zone), with milliseconds. */
export function instant(text: string): string {
  const iso = text.replace(' ', 'T');
  const zoned = iso.length === 10 || /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(iso.slice(16));
  const ms = Date.parse(zoned ? iso : `${iso}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : text;
}

/** JSON arrays and objects with their keys sorted and no spaces; any other text as it is. */
function canonicalJson(text: string): string {
  if (!/^[[{]/.test(text)) return text;
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return Object.fromEntries(
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

function sorted(rows: PlainRow[]): PlainRow[] {
  const keyed = rows.map((row) => [JSON.stringify(row), row] as const);
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return keyed.map(([, row]) => row);
}

/** The PostgreSQL type of a SQLite column: see "PostgreSQL" in docs/schema.md. */
export function pgType(
  table: string,
  column: { name: string; type: string },
  isView: boolean,
): string {
  if (column.name === 'data' && !isView) return 'jsonb';
  // The change feed's JSON is jsonb too, its numbers bigint (seq in commit order, a transaction id).
  if (table === 'changes' && column.name === 'fields') return 'jsonb';
  if (column.type === 'INTEGER') {
    const identity = column.name === 'id' && (table === 'task_history' || table === 'outbox');
    if (table === 'changes') return 'bigint';
    return isView || identity ? 'bigint' : 'integer';
  }
  return {
    TEXT: 'text',
    REAL: 'double precision',
    BOOLEAN: 'boolean',
    DATE: 'date',
    TIMESTAMP: 'timestamp with time zone',
  }[column.type]!;
}

/** Rows whose JSON arrays are sorted (json_agg and json_group_array promise no order), then sorted. */
export function sortedLists(rows: PlainRow[]): PlainRow[] {
  const lists = rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === 'string' && value.startsWith('[')
          ? JSON.stringify((JSON.parse(value) as string[]).sort())
          : value,
      ]),
    ),
  );
  return lists.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}
