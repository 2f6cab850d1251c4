import { describe, expect, it } from 'vitest';
import {
  Backoff,
  DEFAULT_RECONNECT_BASE_MS,
  DEFAULT_RECONNECT_MAX_MS,
} from '../../src/realtime/index.js';

describe('Backoff', () => {
  it('draws each delay uniformly below a ceiling that doubles up to the maximum', () => {
    const almostOne = new Backoff({ random: () => 0.999_999 });
    const delays = Array.from({ length: 9 }, () => almostOne.next());
    expect(delays).toEqual([999, 1_999, 3_999, 7_999, 15_999, 31_999, 59_999, 59_999, 59_999]);
    expect(new Backoff({ random: () => 0 }).next()).toBe(0);
    expect(DEFAULT_RECONNECT_BASE_MS).toBe(1_000);
    expect(DEFAULT_RECONNECT_MAX_MS).toBe(60_000);
  });

  it('starts over from the base after a reset, and never overflows', () => {
    const backoff = new Backoff({ baseMs: 100, maxMs: 400, random: () => 0.5 });
    for (let i = 0; i < 2_000; i += 1) backoff.next();
    expect(backoff.next()).toBe(200);
    backoff.reset();
    expect(backoff.failures).toBe(0);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([50, 100, 200]);
  });
});
