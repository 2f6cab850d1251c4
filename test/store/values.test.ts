import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateColumn, timestampColumn } from '../../src/store/values.js';

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
    ];
    expect(others.map(dateColumn)).toEqual(others.map(() => null));
    expect(dateColumn(20260101)).toBeNull();
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
});
