/**
 * Several tokens in one engine, against the real simulator: one mirror of every project any token
 * sees, each project read once through one token, failover when that token is revoked, and every
 * token under one per-IP window.
 */
import { describe, expect, it } from 'vitest';
import { mirrorDifferences } from '../daemon/convergence/compare.js';
import { threeTokens, tokensEngine, tokensUsed } from './fixtures.js';

describe('several tokens', () => {
  it('mirrors every project any token sees once, each through one token, equal to the service', async () => {
    const setup = await threeTokens();
    const engine = await tokensEngine(setup);

    const report = await engine.mirror.syncAll();

    expect(report.ok).toBe(true);
    expect(report.projects.map((p) => p.projectId).sort()).toEqual(['p_1', 'p_2', 'p_3', 'p_4']);
    expect(await mirrorDifferences(engine.db, setup.sim.service)).toEqual([]);
    // Spread by budget per project: a and b each read one project, the account token the rest.
    expect(engine.remote.saved().projects).toEqual({ p_1: 'a', p_2: 'b', p_3: 'c', p_4: 'c' });
    for (const [projectId, label] of Object.entries(engine.remote.saved().projects)) {
      expect(tokensUsed(setup, 'listTasks', projectId), projectId).toEqual([label]);
      expect(tokensUsed(setup, 'listMembers', projectId), projectId).toEqual([label]);
    }
    // Every token listed its projects once; nothing was read twice.
    expect(setup.sim.requestLog.count({ route: 'listProjects' })).toBe(3);
    expect(setup.sim.requestLog.count({ route: 'listTasks' })).toBe(4);
    expect(setup.sim.requestLog.count({ status: 429 })).toBe(0);
  });

  it('moves the projects of a revoked token to another that sees them, within the pass', async () => {
    const setup = await threeTokens({ tasks: 1_200 });
    const engine = await tokensEngine(setup);
    expect((await engine.mirror.syncAll()).ok).toBe(true);
    expect(engine.remote.tokenOf('p_1')).toBe('a');

    // Revoked between the pages of the next poll of p_1, while a task changes.
    const task = setup.sim.service.listTasks('p_1')[700]!;
    setup.sim.faults.beforePage('p_1', 2, () => {
      setup.sim.service.revokeToken(setup.secret('a'));
      setup.sim.service.updateTask(task.id, { name: 'renamed while a was revoked' });
    });
    setup.sim.requestLog.clear();
    const poll = await engine.mirror.syncProject('p_1');

    expect(poll.ok).toBe(true);
    expect(engine.remote.tokenOf('p_1')).toBe('c');
    // Pages 1 and 2 through a (revoked while it answered page 2), page 3 refused to a and sent
    // again through c.
    expect(tokensUsed(setup, 'listTasks', 'p_1')).toEqual(['a', 'a', 'a', 'c']);
    expect(tokensUsed(setup, 'listMembers', 'p_1')).toEqual(['c']);
    expect(setup.sim.requestLog.count({ status: 401 })).toBe(1);
    const name = engine.db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get(task.id);
    expect(name).toBe('renamed while a was revoked');
    expect(await mirrorDifferences(engine.db, setup.sim.service)).toEqual([]);

    // The next reconcile lists with b and c only; a's projects stay read through c.
    const next = await engine.mirror.syncAll();
    expect(next.listingError).toMatch(/token a: .*401/);
    expect(next.removedProjects).toEqual([]);
    expect(next.projects.every((p) => p.ok)).toBe(true);
    expect(engine.tokens().find((t) => t.label === 'a')).toMatchObject({
      refused: true,
      projects: [],
    });
  });

  it('keeps every token busy under one per-IP window: no 429, the window never exceeded', async () => {
    // Windows of one second: each token may send 10, the IP 15, so three tokens on their own
    // would send 30 a second, twice the IP's limit.
    const limits = { burst: 10, burstWindowMs: 1_000, ipLimit: 15, ipWindowMs: 1_000 };
    const setup = await threeTokens({ projects: 3, tasks: 8_000, ...limits });
    const engine = await tokensEngine(setup, {
      governor: {
        burstLimit: 10,
        burstWindowMs: 1_000,
        ipLimit: 15,
        ipWindowMs: 1_000,
        // Loopback transit varies on a busy machine: the simulator counts arrivals.
        windowSlackMs: 200,
      },
    });

    const started = Date.now();
    const report = await engine.mirror.syncAll();

    expect(report.ok).toBe(true);
    expect(new Set(Object.values(engine.remote.saved().projects))).toEqual(
      new Set(['a', 'b', 'c']),
    );
    expect(setup.sim.requestLog.count({ status: 429 })).toBe(0);
    expect(setup.sim.requestLog.count({ code: 'ip_rate_limited' })).toBe(0);
    // The simulator's own count: at most 15 a second from this IP, and more than one token's 10.
    expect(setup.sim.limits.ipPeak()).toBeLessThanOrEqual(15);
    expect(setup.sim.limits.ipPeak()).toBeGreaterThan(10);
    // 3 x (16 pages + 3 lists) + 3 listings = 60 requests at 15 a second: about 4 s, not 2.
    expect(setup.sim.requestLog.count()).toBe(60);
    expect(Date.now() - started).toBeGreaterThan(3_000);
    expect(await mirrorDifferences(engine.db, setup.sim.service)).toEqual([]);
  }, 30_000);
});
