/**
 * The fields and ops of an item's base are defined once (`src/store/outbox-queue/conflict.ts`): the triggers
 * that record a base when an item is queued, in each engine's schema and in the PostgreSQL
 * upgrade script, list exactly the same (issue 36: they were written three times).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKED_OPS, TASK_FIELDS } from '../../src/store/outbox-queue/conflict.js';

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

/** The quoted words of `text`, in order. */
function quoted(text: string): string[] {
  return [...text.matchAll(/'([^']*)'/g)].map((match) => match[1]!);
}

/** The SQL of the trigger named `name` in `sql`, from its name to its end. */
function trigger(sql: string, name: string): string {
  const start = sql.search(new RegExp(`\\b${name}\\b`));
  expect(start, `${name} in the schema`).toBeGreaterThanOrEqual(0);
  return sql.slice(start, sql.indexOf('\nEND;', start) + 5);
}

describe("an outbox item's base fields, defined once", () => {
  it('schema.sql: the trigger lists the checked ops and the task fields, in order', () => {
    const sql = trigger(read('schema.sql'), 'outbox_base');
    const ops = sql.match(/new\.op IN \(([^)]*)\)/);
    expect(quoted(ops![1]!)).toEqual([...CHECKED_OPS]);
    const fields = sql.match(/SELECT 'name' AS field[^)]*\)/);
    expect(quoted(fields![0]!)).toEqual(TASK_FIELDS);
  });

  for (const file of ['schema.pg.sql', 'schema.pg.upgrades.sql']) {
    it(`${file}: the trigger function lists the checked ops and the task fields, in order`, () => {
      const sql = read(file);
      const ops = sql.match(/NEW\.op NOT IN \(([^)]*)\)/);
      expect(ops, `the ops in ${file}`).not.toBeNull();
      expect(quoted(ops![1]!)).toEqual([...CHECKED_OPS]);
      const fields = sql.match(/unnest\(ARRAY\[([^\]]*)\]/);
      expect(fields, `the fields in ${file}`).not.toBeNull();
      expect(quoted(fields![1]!)).toEqual(TASK_FIELDS);
    });
  }
});
