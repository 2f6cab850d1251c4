/**
 * A full disk during an outbox answer (issue 38): the real daemon against the real simulator,
 * over a mirror capped by `PRAGMA max_page_count` just after an item was queued, so that the
 * service creates the task but the daemon cannot write that it did. Health says so, nothing is
 * corrupt, and the item takes effect exactly once: recorded once there is room, or, when the
 * daemon stopped meanwhile, re-sent with the same key and the service's replay recorded.
 */
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createDaemon } from '../../src/daemon/compose.js';
import { openEngine } from '../../src/daemon/wiring.js';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import type { Simulator } from '../../src/sim/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import { singleToken } from '../../src/tokens/index.js';
import { captureLogger } from '../fixtures/capture-log.js';
import { tempDatabase } from '../fixtures/db.js';
import { outboxItems } from '../fixtures/outbox.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { checkIntegrity, differences } from '../reliability/helpers.js';
import { eventually } from './fixtures.js';

const LONG_NAME = `answered while full ${'x'.repeat(30_000)}`;
const UNCAPPED = 1_073_741_823;

/** A daemon on `db` (not closed with it), started; `stop()` ends it and its engine. */
async function startDaemon(sim: Simulator, db: SqliteDb, logger: pino.Logger) {
  const engine = await openEngine(
    { baseUrl: new URL(sim.baseUrl), tokens: singleToken(sim.token) },
    { db, logger },
  );
  const daemon = createDaemon({
    engine,
    logger,
    realtime: { url: new URL(sim.realtimeUrl), tokens: singleToken(sim.token) },
    outboxIdleMs: 100,
    diskFullRetryMs: 300,
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await daemon.stop();
    await engine.close();
  };
  onTestFinished(stop);
  await daemon.start();
  return { daemon, stop };
}

/**
 * Queues the long create and, once its claim is written (the POST held back by the simulator),
 * caps the file at its size: the answer will not fit.
 */
async function queueThenFill(sim: Simulator, db: SqliteDb) {
  sim.faults.delay({ route: 'createTask', ms: 500 });
  const item = await enqueue(
    db,
    {
      op: 'task.create',
      projectId: 'p_1',
      body: {
        name: LONG_NAME,
        startDate: '2026-01-05',
        endDate: '2026-01-09',
        status: 'NotStarted',
      },
    },
    Date.now(),
  );
  await eventually(
    async () => (await outboxItems(db)).find((i) => i.id === item.id)?.state === 'sending',
  );
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  return item;
}

function createsWithKey(sim: Simulator, key: string) {
  return sim.requestLog.filter({
    route: 'createTask',
    where: (entry) => entry.headers['idempotency-key'] === key,
  });
}

function tasksNamed(sim: Simulator, name: string) {
  return sim.service.listTasks('p_1').filter((task) => task.name === name);
}

describe('a full disk while an outbox answer is written', () => {
  it('says so, and records the answer once there is room: one task, one request', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: [20] });
    const { db, file } = tempDatabase();
    const { logger, lines } = captureLogger('info');
    const { daemon } = await startDaemon(sim, db, logger);
    await eventually(() => daemon.connected && differences(db, sim).length === 0, 10_000);

    const item = await queueThenFill(sim, db);
    await eventually(() => daemon.diskFull, 10_000);
    expect(tasksNamed(sim, LONG_NAME)).toHaveLength(1);
    expect((await outboxItems(db)).find((i) => i.id === item.id)?.state).not.toBe('done');
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
    // Several tries to record it meanwhile: one warning of the disk, one of the answer.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(
      lines
        .filter((l) => l.level >= 40)
        .map((l) => l.msg)
        .sort(),
    ).toEqual([
      'cannot record an answer yet',
      'the disk is full: writes are refused and tried again each minute',
    ]);

    db.pragma(`max_page_count = ${UNCAPPED}`);
    await eventually(
      async () => (await outboxItems(db)).find((i) => i.id === item.id)?.state === 'done',
      10_000,
    );
    await eventually(() => differences(db, sim).length === 0, 10_000);
    await eventually(() => !daemon.diskFull, 10_000);
    expect(tasksNamed(sim, LONG_NAME)).toHaveLength(1);
    expect(createsWithKey(sim, item.idempotencyKey)).toHaveLength(1);
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  }, 60_000);

  it('stopped while full, the item is re-sent with its key and the replay recorded', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: [20] });
    const { db, file } = tempDatabase();
    const { logger } = captureLogger('info');
    const first = await startDaemon(sim, db, logger);
    await eventually(() => first.daemon.connected && differences(db, sim).length === 0, 10_000);

    const item = await queueThenFill(sim, db);
    await eventually(() => first.daemon.diskFull, 10_000);
    expect(createsWithKey(sim, item.idempotencyKey)).toHaveLength(1);
    await first.stop();
    expect((await outboxItems(db)).find((i) => i.id === item.id)?.state).not.toBe('done');
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });

    db.pragma(`max_page_count = ${UNCAPPED}`);
    await startDaemon(sim, db, logger);
    await eventually(
      async () => (await outboxItems(db)).find((i) => i.id === item.id)?.state === 'done',
      10_000,
    );
    const sent = createsWithKey(sim, item.idempotencyKey);
    expect(sent.map((entry) => entry.status)).toEqual([201, 201]);
    expect(tasksNamed(sim, LONG_NAME)).toHaveLength(1);
    const done = (await outboxItems(db)).find((i) => i.id === item.id);
    expect(JSON.parse(done?.result ?? '{}')).toMatchObject({ name: LONG_NAME });
    await eventually(() => differences(db, sim).length === 0, 10_000);
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  }, 60_000);
});
