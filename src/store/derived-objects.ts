/**
 * The objects of `schema.sql` that hold no data of their own: views, triggers, indexes and the
 * full-text index. A migration step changes tables only; after the steps, these are made again
 * from the current `schema.sql`, so a view or trigger never needs a migration of its own.
 */
import Database from 'better-sqlite3';
import type { SqliteDb } from './database.js';
import { readSchema } from './database.js';
import { installWideViews } from './wide-views.js';

interface SchemaObject {
  type: string;
  name: string;
  sql: string;
}

/** Drops every view and trigger (before a step rebuilds a table they name). */
export function dropViewsAndTriggers(db: SqliteDb): void {
  const objects = db
    .prepare<[], { type: string; name: string }>(
      `SELECT type, name FROM sqlite_master WHERE type IN ('view', 'trigger')`,
    )
    .all();
  for (const { type, name } of objects) db.exec(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`);
}

/**
 * Makes the derived objects those of `schema.sql`: every view and trigger afresh, the indexes and
 * virtual tables that are missing, each FTS5 index rebuilt from its table (a step may have
 * rebuilt the table; the tasks of an unfinished backfill left out, as schema.sql's triggers
 * keep it), then the wide views.
 */
export function rebuildDerivedObjects(db: SqliteDb): void {
  dropViewsAndTriggers(db);
  const present = new Set(db.prepare<[], string>(`SELECT name FROM sqlite_master`).pluck().all());
  for (const object of schemaObjects()) {
    const virtual = object.type === 'table' && /^CREATE VIRTUAL TABLE/i.test(object.sql);
    if (object.type === 'view' || object.type === 'trigger') {
      db.exec(object.sql);
    } else if ((object.type === 'index' || virtual) && !present.has(object.name)) {
      db.exec(object.sql);
    }
    if (virtual && /USING\s+fts5/i.test(object.sql)) {
      db.exec(`INSERT INTO "${object.name}" ("${object.name}") VALUES ('rebuild')`);
    }
  }
  // The tasks of a backfill in hand join the full-text index when it completes (schema.sql).
  db.exec(`INSERT INTO tasks_fts (tasks_fts, rowid, name)
    SELECT 'delete', t.rowid, t.name FROM tasks t
    JOIN sync_state s ON s.project_id = t.project_id AND s.backfill <> 'done'`);
  installWideViews(db);
}

let objectSql: Map<string, string> | undefined;

/** The `CREATE` statement of `schema.sql` for its `type` (index, trigger) named `name`. */
export function schemaObjectSql(type: string, name: string): string {
  objectSql ??= new Map(
    schemaObjects().map((object) => [`${object.type} ${object.name}`, object.sql]),
  );
  const sql = objectSql.get(`${type} ${name}`);
  if (sql === undefined) throw new Error(`schema.sql has no ${type} ${name}`);
  return sql;
}

/** The objects `schema.sql` creates, in its order (the FTS5 index's own tables left out). */
function schemaObjects(): SchemaObject[] {
  const scratch = new Database(':memory:');
  try {
    scratch.exec(readSchema());
    return scratch
      .prepare<[], SchemaObject>(
        `SELECT type, name, sql FROM sqlite_master
         WHERE sql IS NOT NULL AND name NOT IN (
           SELECT v.name || s.suffix FROM sqlite_master v,
             (SELECT '_data' AS suffix UNION ALL SELECT '_idx' UNION ALL SELECT '_content'
              UNION ALL SELECT '_docsize' UNION ALL SELECT '_config') s
           WHERE v.sql LIKE 'CREATE VIRTUAL TABLE%'
         )
         ORDER BY rowid`,
      )
      .all();
  } finally {
    scratch.close();
  }
}
