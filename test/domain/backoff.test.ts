import { describe, expect, it } from 'vitest';
import { backoffCeilingMs, backoffDelayMs, type BackoffPolicy } from '../../src/domain/backoff.js';

const policy = (random: () => number, baseMs = 1_000, maxMs = 60_000): BackoffPolicy => ({
  baseMs,
  maxMs,
  random,
});

describe('backoffDelayMs', () => {
  it('draws each delay uniformly below a ceiling that doubles per failure up to the cap', () => {
    const almostOne = policy(() => 0.999_999);
    const delays = Array.from({ length: 9 }, (_, i) => backoffDelayMs(i + 1, almostOne));
    expect(delays).toEqual([999, 1_999, 3_999, 7_999, 15_999, 31_999, 59_999, 59_999, 59_999]);
    expect(
      backoffDelayMs(
        1,
        policy(() => 0),
      ),
    ).toBe(0);
    expect(
      backoffDelayMs(
        3,
        policy(() => 0.5, 100, 400),
      ),
    ).toBe(200);
  });

  it('takes the base for the first failure (and for none), and never overflows', () => {
    const half = policy(() => 0.5, 100, 400);
    expect(backoffCeilingMs(0, half)).toBe(100);
    expect(backoffCeilingMs(1, half)).toBe(100);
    expect(backoffCeilingMs(5_000, half)).toBe(400);
    expect(backoffDelayMs(Number.MAX_SAFE_INTEGER, half)).toBe(200);
  });

  it('never goes below the base when the cap is set lower', () => {
    expect(
      backoffCeilingMs(
        4,
        policy(() => 0.5, 500, 100),
      ),
    ).toBe(500);
  });
});
