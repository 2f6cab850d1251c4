/**
 * Outbox items with several tokens, against the real simulator: each goes out with the token
 * chosen for it (`--token`, else the one reading its project), recorded before its first request
 * and kept across retries and restarts, so its Idempotency-Key keeps its scope: exactly once,
 * under that token's integration identity.
 */
import { describe, expect, it } from 'vitest';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { hashToken } from '../../src/sim/index.js';
import { STATE_KEYS } from '../../src/store/daemon-state.js';
import { mirrorDifferences } from '../daemon/convergence/compare.js';
import { newTask } from '../outbox/tasks.js';
import { threeTokens, tokensEngine, type ThreeTokens } from './fixtures.js';
import { outboxItems } from '../fixtures/outbox.js';

/** The simulator's tasks named `name`, across every project. */
function tasksNamed(setup: ThreeTokens, name: string) {
  return setup.sim.service
    .listProjects()
    .flatMap((project) => setup.sim.service.listTasks(project.id))
    .filter((task) => task.name === name);
}

/** The create requests the simulator received for `name`'s project path, with token and key. */
function creates(setup: ThreeTokens, projectId: string) {
  return setup.sim.requestLog
    .filter({ route: 'createTask', where: (entry) => entry.path.includes(`/${projectId}/`) })
    .map((entry) => ({ tokenHash: entry.tokenHash, key: entry.headers['idempotency-key'] }));
}

describe('outbox items with several tokens', () => {
  it('go out with their token and its integration identity, exactly once, across a lost answer', async () => {
    const setup = await threeTokens();
    const engine = await tokensEngine(setup);
    expect((await engine.mirror.syncAll()).ok).toBe(true);
    const now = Date.now();
    // Queued first, so the lost answer below is its own: p_3 is read through c.
    const lost = await enqueue(
      engine.db,
      { op: 'task.create', projectId: 'p_3', body: newTask('lost') },
      now,
    );
    const read = await enqueue(
      engine.db,
      { op: 'task.create', projectId: 'p_1', body: newTask('by a') },
      now,
    );
    const chosen = await enqueue(
      engine.db,
      { op: 'task.create', projectId: 'p_2', body: newTask('by c'), tokenLabel: 'c' },
      now,
    );
    const unknown = await enqueue(
      engine.db,
      { op: 'task.create', projectId: 'p_4', body: newTask('nobody'), tokenLabel: 'gone' },
      now,
    );
    setup.sim.faults.failNext({ route: 'createTask', kind: 'commitThenDrop', count: 1 });

    const report = await engine.pusher().pushOnce();

    expect(report).toMatchObject({ done: 3, failed: 1, pending: 0 });
    const items = new Map((await outboxItems(engine.db)).map((item) => [item.id, item]));
    expect(items.get(lost.id)).toMatchObject({ state: 'done', tokenLabel: 'c', attempts: 2 });
    expect(items.get(read.id)).toMatchObject({ state: 'done', tokenLabel: 'a' });
    expect(items.get(chosen.id)).toMatchObject({ state: 'done', tokenLabel: 'c' });
    expect(items.get(unknown.id)?.state).toBe('failed');
    expect(items.get(unknown.id)?.lastError).toMatch(
      /^token_unavailable: token gone is not configured/,
    );

    // The lost answer was resent with the same token and key: one task.
    const c = hashToken(setup.secret('c'));
    expect(creates(setup, 'p_3')).toEqual([
      { tokenHash: c, key: lost.idempotencyKey },
      { tokenHash: c, key: lost.idempotencyKey },
    ]);
    expect(creates(setup, 'p_1')).toEqual([
      { tokenHash: hashToken(setup.secret('a')), key: read.idempotencyKey },
    ]);
    expect(creates(setup, 'p_2')).toEqual([{ tokenHash: c, key: chosen.idempotencyKey }]);
    expect(creates(setup, 'p_4')).toEqual([]);
    for (const name of ['lost', 'by a', 'by c']) expect(tasksNamed(setup, name)).toHaveLength(1);
    expect(tasksNamed(setup, 'nobody')).toHaveLength(0);

    // Each task is assigned to the integration identity of the token that created it.
    const identity = (label: string, projectId: string) =>
      setup.sim.service.integrationMemberId(setup.secret(label), projectId);
    expect(tasksNamed(setup, 'by a')[0]?.assigneeIds).toEqual([identity('a', 'p_1')]);
    expect(tasksNamed(setup, 'by c')[0]?.assigneeIds).toEqual([identity('c', 'p_2')]);
    expect(identity('a', 'p_1')).toBeDefined();
    expect(identity('c', 'p_2')).not.toBe(identity('b', 'p_2'));
    // The next pass brings each identity's member row into the mirror.
    expect((await engine.mirror.syncAll()).ok).toBe(true);
    expect(await mirrorDifferences(engine.db, setup.sim.service)).toEqual([]);
    const member = engine.db
      .prepare(
        `SELECT json_extract(data, '$.name') FROM members WHERE project_id = 'p_1' AND id = ?`,
      )
      .pluck();
    expect(member.get(identity('a', 'p_1'))).toBe('Client A (integration)');
  });

  it('keeps the token of its first attempt after a restart that reads the project through another', async () => {
    const setup = await threeTokens();
    const first = await tokensEngine(setup);
    expect((await first.mirror.syncAll()).ok).toBe(true);
    const item = await enqueue(
      first.db,
      { op: 'task.create', projectId: 'p_1', body: newTask('kept') },
      Date.now(),
    );
    setup.sim.faults.failNext({ route: 'createTask', kind: 'status', status: 503, count: 1 });
    const failed = await first.pusher({ itemRetryWindowMs: 0 }).pushOnce();
    expect(failed).toMatchObject({ done: 0, pending: 1 });
    expect((await outboxItems(first.db))[0]).toMatchObject({ tokenLabel: 'a', attempts: 1 });

    // A restart whose saved routing reads p_1 through c (as after a failover).
    await first.store.state.set(STATE_KEYS.routing, { tokens: [], projects: { p_1: 'c' } }, 'now');
    const restarted = await tokensEngine(setup, { db: first.db });
    expect((await restarted.mirror.syncAll()).ok).toBe(true);
    expect(restarted.remote.tokenOf('p_1')).toBe('c');
    const done = await restarted.pusher().pushOnce({ ignoreBackoff: true });

    expect(done).toMatchObject({ done: 1, pending: 0 });
    // The same key both times (the injected 503 answered before the token was read), and the
    // resend through a, not c.
    const sent = creates(setup, 'p_1');
    expect(sent.map((create) => create.key)).toEqual([item.idempotencyKey, item.idempotencyKey]);
    expect(sent[1]?.tokenHash).toBe(hashToken(setup.secret('a')));
    expect(tasksNamed(setup, 'kept')).toHaveLength(1);
  });
});
