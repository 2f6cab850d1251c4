import { describe, expect, it, vi } from 'vitest';
import { BudgetExhaustedError, RateLimitedError } from '../../src/domain/index.js';
import { parseRetryAfter } from '../../src/remote/index.js';
import { flushMicrotasks } from '../fixtures/clock.js';
import { clientOf, drive, failure, standIn, type Reply } from './stand-in.js';

const OK: Reply = { status: 200, body: [{ id: 'p_1' }] };

function limited(retryAfter?: string): Reply {
  return {
    status: 429,
    headers: {
      ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
      'x-quota-limit': '5000',
      'x-quota-remaining': '4000',
    },
    body: { code: 'rate_limited', message: 'slow down' },
  };
}

describe('Retry-After', () => {
  it('parses seconds, HTTP dates, and falls back when absent or unreadable', () => {
    const now = Date.UTC(2026, 10, 21, 12, 0, 0);
    expect(parseRetryAfter('120', now, 60_000)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:05:00 GMT', now, 60_000)).toBe(300_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now, 60_000)).toBe(0);
    expect(parseRetryAfter(undefined, now, 60_000)).toBe(60_000);
    expect(parseRetryAfter('soon', now, 60_000)).toBe(60_000);
    expect(parseRetryAfter('-5', now, 60_000)).toBe(60_000);
  });

  const cases: [string, (now: number) => string | undefined, number][] = [
    ['seconds', () => '7', 7_000],
    ['an HTTP date', (now) => new Date(now + 90_000).toUTCString(), 90_000],
    ['absent', () => undefined, 60_000],
  ];
  for (const [what, value, expected] of cases) {
    it(`reports a 429 to the gate with Retry-After as ${what}, then retries after the pause`, async () => {
      let now = 0;
      const stand = await standIn((_seen, index) => (index === 0 ? limited(value(now)) : OK));
      const { remote, clock, gate } = clientOf(stand);
      now = clock.now();
      const delays: number[] = [];
      expect(await drive(remote.listProjects(), clock, delays)).toEqual([{ id: 'p_1' }]);
      expect(gate.observed[0]).toEqual({
        status: 429,
        quotaLimit: 5000,
        quotaRemaining: 4000,
        retryAfterMs: expected,
        code: 'rate_limited',
      });
      expect(delays).toEqual([expected]);
      expect(stand.seen).toHaveLength(2);
    });
  }
});

describe('429 pauses the whole token', () => {
  it('holds a second, concurrent request too, and sends nothing before the pause ends', async () => {
    let first = true;
    const stand = await standIn((seen) => {
      if (seen.url === '/v1/projects' && first) {
        first = false;
        return limited('30');
      }
      return { status: 200, body: [] };
    });
    const { remote, clock } = clientOf(stand);
    const start = clock.now();
    const projects = remote.listProjects();
    await vi.waitFor(() => expect(clock.pendingSleeps).toBe(1));
    const members = remote.listMembers('p_1');
    await flushMicrotasks();
    expect(clock.pendingSleeps).toBe(2);
    expect(stand.seen).toHaveLength(1);

    await clock.advance(29_999);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stand.seen).toHaveLength(1);

    await clock.advance(1);
    expect(await projects).toEqual([]);
    expect(await members).toEqual([]);
    expect(clock.now()).toBe(start + 30_000);
    expect(stand.seen.map((s) => s.url).sort()).toEqual([
      '/v1/projects',
      '/v1/projects',
      '/v1/projects/p_1/members',
    ]);
  });

  it('retries a write refused with 429 once the pause is over', async () => {
    const stand = await standIn((_seen, index) =>
      index === 0 ? limited('5') : { status: 200, body: { id: 't_1', progress: 50 } },
    );
    const { remote, clock } = clientOf(stand);
    const write = remote.send({
      route: 'updateTask',
      params: { taskId: 't_1' },
      body: '{"progress":50}',
      projectId: 'p_1',
    });
    const delays: number[] = [];
    expect(await drive(write, clock, delays)).toEqual({
      status: 200,
      body: { id: 't_1', progress: 50 },
    });
    expect(delays).toEqual([5_000]);
    expect(stand.seen.map((s) => s.body)).toEqual(['{"progress":50}', '{"progress":50}']);
  });

  it('stops after maxRateLimitRetries with a RateLimitedError', async () => {
    const stand = await standIn(() => limited('1'));
    const { remote, clock } = clientOf(stand, { maxRateLimitRetries: 2 });
    const error = await failure(drive(remote.listProjects(), clock));
    expect(stand.seen).toHaveLength(3);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ retryAfterMs: 1_000, serviceCode: 'rate_limited' });
  });

  it('lets the gate reject a long pause with BudgetExhaustedError (one-shot sync)', async () => {
    const stand = await standIn(() => ({
      ...limited('18000'),
      body: { code: 'quota_exceeded', message: 'daily quota spent' },
    }));
    const { remote, clock } = clientOf(stand, {}, { maxWaitMs: 60_000 });
    const error = await failure(remote.listProjects());
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect((error as BudgetExhaustedError).resumeAt).toBe(clock.now() + 18_000_000);
    expect(error.message).toMatch(/after HTTP 429 quota_exceeded; requests resume at /);
    expect(stand.seen).toHaveLength(1);
  });
});
