import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readSchema, type SqliteDb } from '../../src/store/database.js';
import { installWideViews, WIDE_VIEWS } from '../../src/store/wide-views.js';
import { documentedTypes, isFullTextShadow } from './column-types.js';

/** The doc up to its PostgreSQL section, which test/store/postgres-schema.test.ts checks. */
const FULL_DOC = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');
const DOC = FULL_DOC.slice(0, FULL_DOC.indexOf('\n## PostgreSQL'));

/** A fresh mirror in memory: schema.sql, then the wide views' triggers and views. */
function freshMirror(): SqliteDb {
  const db = new Database(':memory:');
  db.exec(readSchema());
  installWideViews(db);
  return db;
}

/** The tables and views of schema.sql with their columns, and its indexes, from SQLite itself. */
function schemaObjects() {
  const db = new Database(':memory:');
  try {
    db.exec(readSchema());
    const objects = db
      .prepare(
        `SELECT name, type FROM sqlite_master
         WHERE type IN ('table', 'view', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      )
      .all() as Array<{ name: string; type: string }>;
    const columns = new Map<string, string[]>();
    for (const { name } of objects.filter((o) => o.type !== 'index' && !isFullTextShadow(o.name))) {
      // hidden 1: a virtual table's hidden column (FTS5's own); generated columns are 2 and 3.
      const info = db.pragma(`table_xinfo(${name})`) as Array<{ name: string; hidden: number }>;
      columns.set(
        name,
        info.filter((column) => column.hidden !== 1).map((column) => column.name),
      );
    }
    const indexes = objects.filter((o) => o.type === 'index').map((o) => o.name);
    return { columns, indexes };
  } finally {
    db.close();
  }
}

/** Each `### \`name\`` section of the doc with the columns its table rows name. */
function documentedSections(): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of DOC.split('\n')) {
    const heading = /^### `([a-z_]+)`$/.exec(line);
    if (heading) {
      current = [];
      sections.set(heading[1]!, current);
    } else if (line.startsWith('## ')) {
      current = undefined;
    } else {
      const row = /^\|\s*`([a-z_]+)`\s*\|/.exec(line);
      if (row && current) current.push(row[1]!);
    }
  }
  return sections;
}

describe('docs/schema.md', () => {
  it('has a section for every table and view of schema.sql listing exactly its columns', () => {
    const { columns } = schemaObjects();
    const sections = documentedSections();
    expect([...sections.keys()].sort()).toEqual([...columns.keys()].sort());
    for (const [name, expected] of columns) {
      expect(sections.get(name), name).toEqual(expected);
    }
  });

  it('names every index of schema.sql, and no index that is not there', () => {
    const { indexes } = schemaObjects();
    const section = DOC.slice(DOC.indexOf('\n## Indexes'), DOC.indexOf('\n## Example queries'));
    const documented = [...section.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual([...indexes].sort());
  });

  it('lists every wide view with its leading columns', () => {
    const section = DOC.slice(DOC.indexOf('\n## Wide views'), DOC.indexOf('\n## Mirrored tables'));
    const rows = [...section.matchAll(/^\| `(v_[a-z_]+)` \| (.+?) \|/gm)].map((m) => [
      m[1],
      [...m[2]!.matchAll(/`([a-z_]+)`/g)].map((c) => c[1]),
    ]);
    const expected = Object.values(WIDE_VIEWS).map((wide) => [
      wide.view,
      wide.keys.map(([column]) => column),
    ]);
    expect(rows).toEqual(expected);
    const db = freshMirror();
    try {
      for (const [view, keys] of expected) {
        const info = db.pragma(`table_info(${view as string})`) as Array<{ name: string }>;
        expect(info.map((column) => column.name)).toEqual(keys);
      }
    } finally {
      db.close();
    }
  });

  it('documents as the types map exactly the types column_types lends', () => {
    const db = freshMirror();
    try {
      const lent = (db.pragma('table_info(column_types)') as Array<{ type: string }>).map(
        (column) => column.type,
      );
      expect([...documentedTypes()].sort()).toEqual(lent.sort());
    } finally {
      db.close();
    }
  });

  it('has example queries that run against the schema', () => {
    const db = freshMirror();
    try {
      const queries = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
      expect(queries.length).toBeGreaterThanOrEqual(10);
      for (const sql of queries) expect(() => db.prepare(sql).all(), sql).not.toThrow();
    } finally {
      db.close();
    }
  });
});
