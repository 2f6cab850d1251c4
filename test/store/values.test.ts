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
});
