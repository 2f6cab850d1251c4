/** Counts written as en-US writes them, without the locale's number data. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grouped, plural } from '../../src/cli/plural.js';

describe('counts', () => {
  it('group every three digits as toLocaleString does, for any whole number', () => {
    expect([0, 999, 1000, 4360, -1234567].map(grouped)).toEqual([
      '0',
      '999',
      '1,000',
      '4,360',
      '-1,234,567',
    ]);
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double()), (count) => {
        expect(grouped(count)).toBe(count.toLocaleString('en-US'));
      }),
      { seed: 20261125, numRuns: 2000 },
    );
  });

  it('name the noun in the singular for exactly one', () => {
    expect([plural(1, 'page'), plural(0, 'page'), plural(100_000, 'task')]).toEqual([
      '1 page',
      '0 pages',
      '100,000 tasks',
    ]);
  });
});
