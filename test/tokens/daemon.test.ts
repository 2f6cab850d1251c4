/**
 * The daemon with three tokens against the real simulator: one realtime connection per token,
 * each token's quota planned over the projects it reads, `status` per token, and a revoked
 * token's projects read through another at their next poll.
 */
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatherStatus } from '../../src/cli/status/gather.js';
import { systemClock } from '../../src/domain/index.js';
import { inlineStore } from '../../src/store/thread/inline.js';
import { renderStatus } from '../../src/cli/status/render.js';
import { createDaemon } from '../../src/daemon/compose.js';
import { eventually } from '../daemon/fixtures.js';
import { threeTokens, tokensEngine } from './fixtures.js';

describe('the daemon with several tokens', () => {
  it('listens once per token, plans per token, shows each token, and survives a revoked one', async () => {
    const setup = await threeTokens();
    const engine = await tokensEngine(setup);
    const daemon = createDaemon({
      engine,
      logger: pino({ level: 'silent' }),
      realtime: { url: new URL(setup.sim.realtimeUrl), tokens: setup.tokens },
      coalesceMs: 20,
    });
    onTestFinished(() => daemon.stop());
    await daemon.start();
    await eventually(() => daemon.connected);
    expect(setup.sim.realtime.connectionCount).toBe(3);

    // Each token's quota over the projects it reads.
    const plan = daemon.plan();
    expect(plan.tokens?.map((t) => [t.token, t.projects])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 2],
    ]);
    expect(plan.projects.map((p) => [p.projectId, p.token])).toEqual([
      ['p_1', 'a'],
      ['p_2', 'b'],
      ['p_3', 'c'],
      ['p_4', 'c'],
    ]);

    const status = await gatherStatus(inlineStore(engine.db, { clock: systemClock }), Date.now());
    expect(status.tokens.map((t) => [t.label, t.scope, t.projects, t.refused])).toEqual([
      ['a', 'project', ['p_1'], false],
      ['b', 'unknown', ['p_2'], false],
      ['c', 'account', ['p_3', 'p_4'], false],
    ]);
    expect(status.tokens[2]?.quota.remaining).toBe(
      5000 -
        setup.sim.requestLog.count({
          token: setup.secret('c'),
          where: (entry) => entry.route !== 'realtime',
        }),
    );
    expect(status.projects.map((p) => p.token)).toEqual(['a', 'b', 'c', 'c']);
    const text = renderStatus(status);
    expect(text).toMatch(/^token c \(scope account\): 2 projects; quota \d+ of 5000 left/m);
    expect(text).not.toContain('glt_');

    // Revoked: its realtime connection closes; p_1's events still come through c's.
    setup.sim.service.revokeToken(setup.secret('a'));
    await eventually(() => !daemon.connected);
    const task = setup.sim.service.listTasks('p_1')[0]!;
    setup.sim.service.updateTask(task.id, { name: 'heard through c' });
    const name = engine.db.prepare('SELECT name FROM tasks WHERE id = ?').pluck();
    await eventually(() => name.get(task.id) === 'heard through c');
    // p_1's next pass (a poll) is read through c.
    setup.sim.service.updateTask(task.id, { name: 'polled through c' });
    expect((await engine.mirror.syncProject('p_1')).ok).toBe(true);
    expect(name.get(task.id)).toBe('polled through c');
    expect(engine.remote.tokenOf('p_1')).toBe('c');
  });
});
