import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readSchema } from '../../src/store/database.js';

const DOC = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');

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
    for (const { name } of objects.filter((o) => o.type !== 'index')) {
      const info = db.pragma(`table_xinfo(${name})`) as Array<{ name: string }>;
      columns.set(
        name,
        info.map((column) => column.name),
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

  it('has example queries that run against the schema', () => {
    const db = new Database(':memory:');
    try {
      db.exec(readSchema());
      const queries = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
      expect(queries.length).toBeGreaterThanOrEqual(5);
      for (const sql of queries) expect(() => db.prepare(sql).all(), sql).not.toThrow();
    } finally {
      db.close();
    }
  });
});
