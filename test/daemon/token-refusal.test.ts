import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/manual-clock.js';
import { TokenRefusalWatch } from '../../src/daemon/token-refusal.js';
import type { ResponseMetric } from '../../src/remote/index.js';

const MINUTE = 60_000;

function watch(windowMs: number) {
  const clock = new ManualClock();
  const reasons: string[] = [];
  const refusal = new TokenRefusalWatch(clock, windowMs, (reason) => reasons.push(reason));
  const answer = (route: ResponseMetric['route'], status: number, code?: string) =>
    refusal.observe({ route, status, ms: 5, ...(code ? { code } : {}) });
  return { clock, reasons, refusal, answer };
}

describe('TokenRefusalWatch', () => {
  it('is refused at the first 401, and reports once every request was refused for the window', () => {
    const { clock, reasons, refusal, answer } = watch(10 * MINUTE);
    answer('listProjects', 200);
    expect(refusal.refused).toBe(false);
    answer('listTasks', 401, 'unauthorized');
    expect(refusal.refused).toBe(true);
    clock.stepTo(clock.now() + 9 * MINUTE);
    answer('listProjects', 401, 'unauthorized');
    expect(reasons).toEqual([]);
    clock.stepTo(clock.now() + MINUTE);
    answer('listProjects', 401, 'unauthorized');
    expect(reasons).toEqual([
      'the service has refused the token on every request for 10 min (last: listProjects 401 unauthorized)',
    ]);
    answer('listProjects', 401, 'unauthorized');
    expect(reasons).toHaveLength(1);
  });

  it('starts over after any success, and takes 5xx, 429 and network errors as no sign either way', () => {
    const { clock, reasons, refusal, answer } = watch(10 * MINUTE);
    answer('listProjects', 401);
    clock.stepTo(clock.now() + 6 * MINUTE);
    answer('listTasks', 304);
    expect(refusal.refused).toBe(false);
    answer('listProjects', 401);
    clock.stepTo(clock.now() + 6 * MINUTE);
    answer('listProjects', 503);
    answer('listProjects', 429, 'rate_limited');
    answer('listProjects', 0);
    expect(refusal.refused).toBe(true);
    answer('listProjects', 401);
    expect(reasons).toEqual([]);
    clock.stepTo(clock.now() + 4 * MINUTE);
    answer('listProjects', 401);
    expect(reasons).toHaveLength(1);
  });

  it("counts a 403 to the token's project listing, not to one hidden record", () => {
    const { reasons, refusal, answer } = watch(0);
    answer('getTask', 403, 'forbidden');
    expect(refusal.refused).toBe(false);
    answer('createTask', 403, 'project_read_only');
    expect(refusal.refused).toBe(false);
    answer('listProjects', 403, 'forbidden');
    expect(refusal.refused).toBe(true);
    expect(reasons).toHaveLength(1);
  });

  it('with several tokens, is refused only when every token is, and reports after the window', () => {
    const clock = new ManualClock();
    const reasons: string[] = [];
    const refusal = new TokenRefusalWatch(clock, 10 * MINUTE, (r) => reasons.push(r), ['a', 'b']);
    const answer = (token: string, status: number) =>
      refusal.observe({ route: 'listTasks', status, ms: 5, token });
    answer('a', 401);
    expect(refusal.refused).toBe(false);
    expect(refusal.refusedTokens()).toEqual(['a']);
    clock.stepTo(clock.now() + 10 * MINUTE);
    answer('a', 401);
    answer('b', 200);
    expect(reasons).toEqual([]);
    answer('b', 401);
    expect(refusal.refused).toBe(true);
    clock.stepTo(clock.now() + 10 * MINUTE);
    answer('b', 401);
    expect(reasons).toEqual([
      'the service has refused every token (a, b) on every request for 10 min (last: listTasks 401)',
    ]);
    answer('a', 200);
    expect(refusal.refused).toBe(false);
  });
});
