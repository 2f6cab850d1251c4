/**
 * The push half of kill.test.ts: kill -9 during `projmirror push`, ten times, at seeded random points. Each round queues four
 * edits (two task creates, a resource create, a task update), then starts a push and, when the
 * service receives its k-th write (k random), holds that write 30 ms and kills the child a random
 * 0-60 ms later: before the service applied it, or after it did but before the push recorded it.
 * After every kill the file is intact and no queued item is lost; after a last, unkilled push (in this process),
 * every item is done, each create exists exactly once on the service and once in the mirror.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { openDatabase } from '../../src/store/database.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import {
  checkIntegrity,
  inProcess,
  remoteArgs,
  seededRandom,
  spawnCli,
  type CliChild,
} from './helpers.js';
import { outboxItems } from '../fixtures/outbox.js';

const TOKEN = 'glt_test_reliability_kill_push';
const ROUNDS = 10;
const PROJECT = 'p_1';
const HOLD_MS = 30;
const KILL_DELAY_MAX_MS = 60;

/** Queues this round's four edits; returns the names the creates will have. */
async function queueRound(file: string, round: number, taskId: string): Promise<string[]> {
  const db = openDatabase(file);
  const dates = { startDate: '2026-12-01', endDate: '2026-12-04', status: 'NotStarted' };
  const names = [`round ${round} a`, `round ${round} b`, `round ${round} crane`];
  try {
    const queue = (op: string, body: unknown, targetId: string | null = null) =>
      enqueue(db, { op, projectId: PROJECT, targetId, body }, Date.now());
    await queue('task.create', { name: names[0], ...dates });
    await queue('task.update', { progress: (round + 1) * 9 }, taskId);
    await queue('task.create', { name: names[1], ...dates });
    await queue('resource.create', { name: names[2] });
    return names;
  } finally {
    db.close();
  }
}

async function outbox(file: string) {
  const db = openDatabase(file);
  try {
    return await outboxItems(db);
  } finally {
    db.close();
  }
}

/** Runs the ten killed pushes and the last one, asserting as it goes; returns the kills made. */
export async function killPushRounds(): Promise<number> {
  const sim = await startTestSimulator({ projects: 1, tasks: 30, limits: false, tokens: [TOKEN] });
  const file = join(tempDir(), 'mirror.sqlite');
  expect((await inProcess('sync', sim, file)).ok).toBe(true);
  const args = ['push', ...remoteArgs(sim, file)];
  const random = seededRandom(6_002);
  const target = sim.service.listTasks(PROJECT)[0]!.id;
  let running: CliChild | undefined;
  let writes = 0;
  let killAt = Number.POSITIVE_INFINITY;
  sim.faults.delay({
    ms: HOLD_MS,
    count: Number.POSITIVE_INFINITY,
    when: (request) => {
      if (request.method === 'GET') return false;
      writes += 1;
      if (writes !== killAt) return false;
      const child = running?.child;
      setTimeout(() => child?.kill('SIGKILL'), Math.floor(random() * KILL_DELAY_MAX_MS));
      return true;
    },
  });

  const created: string[] = [];
  let killed = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const names = await queueRound(file, round, target);
    created.push(...names);
    const waiting = (await outbox(file)).filter((item) => item.state !== 'done').length;
    writes = 0;
    killAt = 1 + Math.floor(random() * waiting);
    running = spawnCli(args);
    const exit = await running.exit;
    if (exit.signal === 'SIGKILL') killed += 1;
    else expect(exit).toMatchObject({ code: 0, stderr: '' });

    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
    const items = await outbox(file);
    expect(items).toHaveLength((round + 1) * 4);
    expect(items.filter((item) => item.state === 'failed')).toEqual([]);
  }
  expect(killed).toBeGreaterThanOrEqual(ROUNDS - 2);

  expect(await inProcess('push', sim, file)).toMatchObject({ pending: 0, failed: 0 });
  expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  expect((await outbox(file)).map((item) => item.state)).toEqual(Array(ROUNDS * 4).fill('done'));

  const onService = [
    ...sim.service.listTasks(PROJECT).map((task) => task.name),
    ...sim.service.listResources(PROJECT).map((resource) => String(resource.name)),
  ];
  const db = openDatabase(file);
  try {
    const inMirror = db
      .prepare(`SELECT name FROM tasks UNION ALL SELECT name FROM resources`)
      .pluck()
      .all() as string[];
    for (const name of created) {
      expect(
        onService.filter((held) => held === name),
        name,
      ).toHaveLength(1);
      expect(
        inMirror.filter((held) => held === name),
        name,
      ).toHaveLength(1);
    }
  } finally {
    db.close();
  }
  expect(sim.service.listTasks(PROJECT).find((task) => task.id === target)?.progress).toBe(
    ROUNDS * 9,
  );
  return killed;
}
