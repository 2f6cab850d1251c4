import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_FIELD_CHARS, MAX_RECORD_CHARS, type JsonObject } from '../../src/domain/index.js';
import { MAX_NESTING_DEPTH } from '../../src/domain/json-bounds.js';
import { boundsProblem, checkRecord } from '../../src/domain/validate.js';

const context = { route: 'listTasks', projectId: 'p_1', page: 1 };

/** What `checkRecord` says of a task: undefined when it passes, else its error's text. */
function verdict(record: JsonObject): string | undefined {
  try {
    checkRecord(record, 'task', context, 'row 1');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The answer `checkRecord` must give: the full walk's problem, if any, in its line. */
function expected(record: JsonObject): string | undefined {
  const problem = boundsProblem(record);
  return problem === undefined
    ? undefined
    : `listTasks of p_1 page 1: malformed response: row 1: task t_1 ${problem}`;
}

/** A string of one of the lengths around the bound of one string, or a short one. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(MAX_FIELD_CHARS - 1, MAX_FIELD_CHARS, MAX_FIELD_CHARS + 1, 60_000)
      .map((length) => 'x'.repeat(length)),
  },
);

/** A value nested `depth` levels below the record, around the bound of nesting. */
const nested = fc
  .integer({ min: MAX_NESTING_DEPTH - 2, max: MAX_NESTING_DEPTH + 1 })
  .map((depth) => {
    let value: unknown = 'leaf';
    for (let level = 0; level < depth; level += 1) value = level % 2 ? [value] : { v: value };
    return value;
  });

/** A field's value: what tasks hold, and now and then what only the full walk takes. */
const value = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  {
    weight: 2,
    arbitrary: fc.array(fc.oneof(text, fc.integer(), fc.constant(null)), { maxLength: 20 }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: nested },
);

/** A task with random extra fields (their keys now and then at the bound of a key). */
const task = fc
  .dictionary(
    fc.oneof(
      { weight: 9, arbitrary: fc.string({ minLength: 1, maxLength: 8 }).map((key) => `x_${key}`) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(MAX_FIELD_CHARS, MAX_FIELD_CHARS + 1)
          .map((length) => 'k'.repeat(length)),
      },
    ),
    value,
    { maxKeys: 24 },
  )
  .map((fields): JsonObject => ({ id: 't_1', name: 'Wiring', assigneeIds: ['m_1'], ...fields }));

describe('the bounds of a record', () => {
  it('are judged the same with the quick path as by the full walk, for any record', () => {
    fc.assert(
      fc.property(task, (record) => {
        expect(verdict(record)).toBe(expected(record));
      }),
      { seed: 20261125, numRuns: 400 },
    );
  });

  it('are judged the same at the exact size where a record goes over', () => {
    // Fifteen fields at the bound of a string, then one whose length decides: found by the
    // full walk, then each side of it asked of checkRecord, flat or with an array.
    for (const shape of ['flat', 'array'] as const) {
      const record = (length: number): JsonObject => {
        const fields: JsonObject = { id: 't_1', assigneeIds: ['m_1', 'm_2'] };
        for (let i = 0; i < 15; i += 1) fields[`f${i}`] = 'w'.repeat(MAX_FIELD_CHARS);
        fields['last'] = shape === 'flat' ? 'z'.repeat(length) : ['z'.repeat(length), 1, null];
        return fields;
      };
      let [fits, over] = [0, MAX_FIELD_CHARS];
      expect(boundsProblem(record(fits))).toBeUndefined();
      expect(boundsProblem(record(over))).toBeDefined();
      while (over - fits > 1) {
        const middle = Math.floor((fits + over) / 2);
        if (boundsProblem(record(middle)) === undefined) fits = middle;
        else over = middle;
      }
      expect(verdict(record(fits))).toBeUndefined();
      expect(verdict(record(over))).toBe(
        `listTasks of p_1 page 1: malformed response: row 1: task t_1 is over ${MAX_RECORD_CHARS} characters (the bound)`,
      );
    }
  });
});
