import { describe, expect, test } from 'vitest';
import { FakeClock } from '../fixtures/clock.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { client, errorCode } from './helpers.js';

describe('limits (spec sections 7 and 8)', () => {
  test('the burst limit answers 429 rate_limited with Retry-After: the window, and quota headers', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, burst: 5, projects: 1, tasks: 1 });
    const api = client(sim);
    for (let i = 0; i < 5; i += 1) {
      const ok = await api.get('/projects');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-quota-limit')).toBe('5000');
      expect(ok.headers.get('x-quota-remaining')).toBe(String(5000 - i - 1));
    }
    const refused = await api.get('/projects');
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe('rate_limited');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('x-quota-remaining')).toBe('4995'); // the 429 itself is not counted
    await clock.advance(59_999);
    expect((await api.get('/projects')).status).toBe(429);
    await clock.advance(1);
    expect((await api.get('/projects')).status).toBe(200);
  });

  test('the burst is per token: another token is not affected', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, burst: 2, projects: 1 });
    const other = sim.service.createToken();
    await client(sim).get('/projects');
    await client(sim).get('/projects');
    expect((await client(sim).get('/projects')).status).toBe(429);
    expect((await client(sim, other).get('/projects')).status).toBe(200);
  });

  test('the daily quota answers 429 quota_exceeded until the reset, whose time is Retry-After', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 10, 0, 0));
    const dayMs = 3_600_000;
    const sim = await startTestSimulator({ clock, quota: 3, dayMs, projects: 1 });
    const api = client(sim);
    for (let i = 0; i < 3; i += 1) expect((await api.get('/projects')).status).toBe(200);
    const refused = await api.get('/projects');
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe('quota_exceeded');
    expect(refused.headers.get('x-quota-remaining')).toBe('0');
    const reset = Date.parse(refused.headers.get('retry-after') ?? '');
    expect(reset).toBe(Date.UTC(2026, 10, 21, 11, 0, 0));
    await clock.advance(reset - clock.now() - 1);
    expect((await api.get('/projects')).status).toBe(429);
    await clock.advance(1);
    const afterReset = await api.get('/projects');
    expect(afterReset.status).toBe(200);
    expect(afterReset.headers.get('x-quota-remaining')).toBe('2');
  });

  test('the per-IP limit is shared by every token used from that IP', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, ipLimit: 4, projects: 1 });
    const other = sim.service.createToken();
    await client(sim).get('/projects');
    await client(sim).get('/projects');
    await client(sim, other).get('/projects');
    await client(sim, other).get('/projects');
    const refused = await client(sim, other).get('/projects');
    expect(refused.status).toBe(429);
    expect(await errorCode(refused)).toBe('ip_rate_limited');
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await client(sim).get('/projects')).status).toBe(429);
    await clock.advance(60_000);
    expect((await client(sim).get('/projects')).status).toBe(200);
  });

  test('health is never counted and carries no quota headers', async () => {
    const clock = new FakeClock();
    const sim = await startTestSimulator({ clock, burst: 2, quota: 2, ipLimit: 2, projects: 1 });
    const api = client(sim);
    for (let i = 0; i < 5; i += 1) {
      const health = await api.get('/health');
      expect(health.status).toBe(200);
      expect(health.headers.get('x-quota-remaining')).toBeNull();
    }
    const counted = await api.get('/projects');
    expect(counted.status).toBe(200);
    expect(counted.headers.get('x-quota-remaining')).toBe('1');
    expect(sim.limits.usage(sim.token).quotaUsed).toBe(1);
  });

  test('errors other than 429 are counted: a 404 spends quota', async () => {
    const sim = await startTestSimulator({ projects: 1 });
    const missing = await client(sim).get('/projects/p_404');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-quota-remaining')).toBe('4999');
  });

  test('limits: false turns every limit and the quota headers off', async () => {
    const sim = await startTestSimulator({
      limits: false,
      burst: 1,
      quota: 1,
      ipLimit: 1,
      projects: 1,
    });
    for (let i = 0; i < 4; i += 1) {
      const response = await client(sim).get('/projects');
      expect(response.status).toBe(200);
      expect(response.headers.get('x-quota-limit')).toBeNull();
    }
  });
});
