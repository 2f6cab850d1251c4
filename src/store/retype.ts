/**
 * Changing the declared type of a table's columns. SQLite cannot alter a column in place, so the
 * table is rebuilt as its documentation describes: a copy created from the table's own SQL with
 * the new types, every row copied, the old table dropped, the copy renamed and its indexes made
 * again. Working from the stored SQL keeps every other column and constraint as the mirror has
 * it. The caller runs this in a transaction, with foreign keys off (a drop must not cascade) and
 * with the views and triggers that name the table dropped.
 */
import { StoreError } from '../domain/index.js';
import type { SqliteDb } from './database.js';

/** A table and the declared type each of the named columns gets. */
export interface Retype {
  table: string;
  columns: Readonly<Record<string, string>>;
}

/** Rebuilds `retype.table` with the new column types; its rows, indexes and rowids are kept. */
export function retypeColumns(db: SqliteDb, retype: Retype): void {
  const { table } = retype;
  const sql = objectSql(db, 'table', table);
  const copy = `${table}__retyped`;
  const created = retypedSql(sql, retype).replace(
    /^CREATE TABLE\s+("?)[A-Za-z_]+\1/,
    `CREATE TABLE "${copy}"`,
  );
  const indexes = db
    .prepare<[string], string>(
      `SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`,
    )
    .pluck()
    .all(table);
  db.exec(created);
  const columns = copiedColumns(db, table).join(', ');
  db.exec(`INSERT INTO "${copy}" (${columns}) SELECT ${columns} FROM "${table}"`);
  db.exec(`DROP TABLE "${table}"`);
  db.exec(`ALTER TABLE "${copy}" RENAME TO "${table}"`);
  for (const index of indexes) db.exec(index);
  checkTypes(db, retype);
}

/** The table's SQL with each named column's declared type replaced. */
function retypedSql(sql: string, { table, columns }: Retype): string {
  let result = sql;
  for (const [column, type] of Object.entries(columns)) {
    // A column definition starts a line or follows `(` or `,`; its type is the next word.
    const definition = new RegExp(`([(,\\n]\\s*"?${column}"?\\s+)[A-Za-z]+`);
    if (!definition.test(result)) {
      throw new StoreError(`cannot retype ${table}.${column}: no such column definition`);
    }
    result = result.replace(definition, `$1${type}`);
  }
  return result;
}

function objectSql(db: SqliteDb, type: string, name: string): string {
  const sql = db
    .prepare<[string, string], string>(`SELECT sql FROM sqlite_master WHERE type = ? AND name = ?`)
    .pluck()
    .get(type, name);
  if (sql === undefined) throw new StoreError(`cannot retype ${name}: no such ${type}`);
  return sql;
}

/**
 * The columns to copy, quoted; `rowid` first for a rowid table whose rowid is not a column of its
 * own, so that rows keep their rowids (the full-text index of task names refers to them).
 */
function copiedColumns(db: SqliteDb, table: string): string[] {
  const info = db.pragma(`table_info("${table}")`) as Array<{
    name: string;
    type: string;
    pk: number;
  }>;
  const keys = info.filter((column) => column.pk > 0);
  const withoutRowid = /\)\s*WITHOUT\s+ROWID\s*$/i.test(objectSql(db, 'table', table));
  const rowidAlias = keys.length === 1 && keys[0]?.type.toUpperCase() === 'INTEGER';
  const columns = info.map((column) => `"${column.name}"`);
  return withoutRowid || rowidAlias ? columns : ['rowid', ...columns];
}

function checkTypes(db: SqliteDb, { table, columns }: Retype): void {
  const info = db.pragma(`table_info("${table}")`) as Array<{ name: string; type: string }>;
  for (const [column, type] of Object.entries(columns)) {
    const found = info.find((c) => c.name === column)?.type;
    if (found !== type) {
      throw new StoreError(`retyping ${table}.${column} to ${type} gave ${found ?? 'nothing'}`);
    }
  }
}
