import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assigneesOf, dateColumn, timestampColumn } from '../../src/store/values.js';

describe('typed columns', () => {
  it('keeps a calendar date, nothing else', () => {
    const dates = ['2026-02-28', '2024-02-29', '2000-02-29', '0000-01-01', '2026-12-31'];
    expect(dates.map(dateColumn)).toEqual(dates);
    const others = [
      '2026-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-1-1',
      'X026-01-15',
      '2O26-05-01',
      '20 6-03-03',
      '+026-01-01',
    ];
    expect(others.map(dateColumn)).toEqual(others.map(() => null));
    expect(dateColumn(20260101)).toBeNull();
  });

  it('reads dates by character code as the pattern and the calendar would', () => {
    // The oracle: the pattern the reader replaced, then the calendar through Date.
    const oracle = (value: string) => {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
      const [year, month, day] = value.split('-').map(Number) as [number, number, number];
      const date = new Date(0);
      date.setUTCFullYear(year, month - 1, day);
      const same = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
      return same && month >= 1 && month <= 12 ? value : null;
    };
    const char = fc.constantFrom(...'0123456789-+ /a\u0660'.split(''));
    const nearDates = fc.oneof(
      fc
        .date({ min: new Date('0000-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
        .map((d) => {
          const text = d.toISOString();
          return text.startsWith('+') || text.startsWith('-') ? '2026-01-01' : text.slice(0, 10);
        }),
      fc.array(char, { minLength: 8, maxLength: 12 }).map((chars) => chars.join('')),
      // A date with one character replaced.
      fc
        .tuple(fc.constantFrom('2024-02-29', '2026-05-01', '1999-12-31'), fc.nat(9), char)
        .map(([date, at, c]) => date.slice(0, at) + c + date.slice(at + 1)),
      fc
        .tuple(fc.nat(9999), fc.nat(14), fc.nat(33))
        .map(([y, m, d]) =>
          [String(y).padStart(4, '0'), String(m).padStart(2, '0'), String(d).padStart(2, '0')].join(
            '-',
          ),
        ),
    );
    fc.assert(
      fc.property(nearDates, (value) => {
        expect(dateColumn(value)).toBe(oracle(value));
      }),
      { seed: 20261125, numRuns: 5000 },
    );
  });

  it('normalizes a time to UTC with milliseconds, its own form as is', () => {
    expect(timestampColumn('2026-11-21T09:30:00.000Z')).toBe('2026-11-21T09:30:00.000Z');
    expect(timestampColumn('2026-11-21T10:30:00+01:00')).toBe('2026-11-21T09:30:00.000Z');
    expect(timestampColumn('2026-11-21 09:30')).toBe('2026-11-21T09:30:00.000Z');
    expect(timestampColumn('2026-11-21')).toBe('2026-11-21T00:00:00.000Z');
    expect(timestampColumn('not a time at all, 24 ch')).toBeNull();
    expect(timestampColumn(null)).toBeNull();
  });

  it('takes a time in its own form as is exactly when Date would write it so', () => {
    const digits = (n: number, max: number) =>
      fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    // Times of that shape, valid or not (2026-02-30, 24:00, 59:60), with seeds that shrink.
    const shaped = fc
      .tuple(digits(4, 9999), digits(2, 13), digits(2, 32), digits(2, 25), digits(2, 61))
      .chain(([y, mo, d, h, mi]) =>
        fc
          .tuple(digits(2, 61), digits(3, 999))
          .map(([sec, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${sec}.${ms}Z`),
      );
    fc.assert(
      fc.property(shaped, (value) => {
        const parsed = Date.parse(value);
        const asDate = Number.isFinite(parsed) && new Date(parsed).toISOString() === value;
        expect(timestampColumn(value) === value).toBe(asDate);
      }),
      { seed: 20261124, numRuns: 2000 },
    );
  });

  it('reads assignees as a sorted set of strings, whatever order, repeats or types come', () => {
    // The oracle: the definition before the quick path for lists already sorted and unique.
    const oracle = (items: unknown[]) =>
      [...new Set(items.filter((id): id is string => typeof id === 'string'))].sort();
    const id = fc.constantFrom('m_1', 'm_10', 'm_2', 'M_1', 'm_é', '', 'm_1 ');
    const item = fc.oneof({ weight: 6, arbitrary: id }, fc.integer(), fc.constant(null));
    const list = fc.oneof(
      fc.array(item, { maxLength: 6 }),
      fc.uniqueArray(id, { maxLength: 6 }).map((ids) => ids.sort()),
    );
    fc.assert(
      fc.property(list, (items) => {
        const task = { id: 't_1', assigneeIds: items };
        const read = assigneesOf(task);
        expect(read).toEqual(oracle(items));
        expect(read).not.toBe(items);
      }),
      { seed: 20261125, numRuns: 2000 },
    );
    expect(assigneesOf({ id: 't_1', assigneeIds: 'm_1' })).toEqual([]);
  });
});
