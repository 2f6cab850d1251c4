/**
 * `push` and `run` behave the same (issue 21, Done when): one scenario played through the real
 * CLI in child processes against the simulator, once with one-shot `projmirror push` and once
 * with the daemon (`projmirror run --realtime-url`), ends in the same outbox states, `last_error`
 * and `conflict` values, and the same records on the service. The scenario: an edit that goes, a
 * create, an edit a colleague's change holds in conflict, one behind it on the same record
 * (waits), one on a record deleted on the service (conflict), then a keep-local resolution.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../fixtures/cli.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { syncWithCli } from '../fixtures/synced.js';
import { newTaskJson } from './tasks.js';

const TOKEN = 'glt_test_push_run_0123456789abcdef';

/** What an outbox row says, as compared between the two runs. */
interface Row {
  id: number;
  op: string;
  state: string;
  last_error: string | null;
  conflict: string | null;
}

/** Reads the outbox of the mirror `file` with a connection of its own. */
function outboxRows(file: string): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT id, op, state, last_error, conflict FROM outbox ORDER BY id')
      .all() as Row[];
  } finally {
    db.close();
  }
}

/** Waits (real time) until the outbox's states are `states`, by item id. */
async function statesBecome(file: string, states: Record<number, string>): Promise<void> {
  const wanted = JSON.stringify(states);
  const deadline = Date.now() + 30_000;
  let seen = '';
  while (Date.now() < deadline) {
    seen = JSON.stringify(Object.fromEntries(outboxRows(file).map((r) => [r.id, r.state])));
    if (seen === wanted) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`outbox states ${seen}, not ${wanted}`);
}

/** States after the first round (the conflicts found), and after the keep-local resolution. */
const HELD = { 1: 'conflict', 2: 'pending', 3: 'done', 4: 'conflict', 5: 'done' };
const SETTLED = { 1: 'done', 2: 'done', 3: 'done', 4: 'conflict', 5: 'done' };

/** Plays the scenario with `push`, or with `run`; what the outbox and the service hold after. */
async function play(mode: 'push' | 'run') {
  const sim = await startTestSimulator({
    projects: 1,
    tasks: 4,
    dependenciesPerProject: 0,
    tokens: [TOKEN],
  });
  const projectId = sim.service.listProjects()[0]!.id;
  const [a, b, c] = sim.service.listTasks(projectId).map((task) => task.id);
  sim.service.updateTask(a!, { status: 'NotStarted' });
  const { dir, db, sync } = await syncWithCli(sim, TOKEN);
  expect(sync.code, sync.stderr).toBe(0);
  const sql = new Database(db);
  const queue = sql.prepare(
    'INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?)',
  );
  queue.run('task.update', projectId, a, '{"status":"InProgress"}'); // 1: held in conflict
  queue.run('task.update', projectId, a, '{"name":"Behind"}'); // 2: waits behind 1
  queue.run('task.update', projectId, b, '{"progress":50}'); // 3: another record: goes
  queue.run('task.update', projectId, c, '{"name":"Too late"}'); // 4: c deleted: conflict
  queue.run('task.create', projectId, null, newTaskJson('Created')); // 5: goes
  sql.close();
  sim.service.updateTask(a!, { status: 'Done' }); // a colleague, in the service's application
  sim.service.deleteTask(c!);

  const remote = ['--base-url', sim.baseUrl, '--token-file', join(dir, 'token'), '--db', db];
  const resolve = async () => {
    const run = await runCli(['outbox', 'resolve', '1', '--keep-local', '--db', db]);
    expect(run.code, run.stderr).toBe(0);
  };
  let held: Row[];
  if (mode === 'push') {
    const first = await runCli(['push', ...remote]);
    expect(first.code, first.stderr).toBe(1);
    held = outboxRows(db);
    await resolve();
    const second = await runCli(['push', ...remote]);
    expect(second.code, second.stderr).toBe(0);
  } else {
    const daemon = startCli(['run', ...remote, '--realtime-url', sim.realtimeUrl]);
    await statesBecome(db, HELD);
    held = outboxRows(db);
    await resolve();
    await statesBecome(db, SETTLED);
    daemon.child.kill('SIGTERM');
    expect((await daemon.ended).code).toBe(0);
  }
  const service = sim.service
    .listTasks(projectId)
    .map(({ updatedAt: _at, ...task }) => task)
    .sort((x, y) => (x.id < y.id ? -1 : 1));
  return { held, settled: outboxRows(db), service, ids: { a: a!, b: b!, c: c! } };
}

describe('push and run', () => {
  it('settle the same queue the same way: states, errors, conflicts and the service', async () => {
    const pushed = await play('push');
    const ran = await play('run');
    expect(ran).toEqual(pushed);

    // And that common outcome is the right one.
    const { held, settled, service, ids } = pushed;
    expect(Object.fromEntries(held.map((r) => [r.id, r.state]))).toEqual(HELD);
    expect(held[0]!.last_error).toBe(
      'conflict: status was NotStarted when queued, is Done on the service; progress was 0 when queued, is 100 on the service',
    );
    expect(JSON.parse(held[0]!.conflict!)).toMatchObject({ fields: 'status,progress' });
    expect(Object.fromEntries(settled.map((r) => [r.id, r.state]))).toEqual(SETTLED);
    expect(settled[0]).toMatchObject({ conflict: null });
    expect(settled[3]).toMatchObject({
      last_error: `conflict: task ${ids.c} was deleted on the service after the item was queued`,
    });
    expect(JSON.parse(settled[3]!.conflict!)).toMatchObject({ fields: 'record', remote: null });
    const task = (id: string) => service.find((t) => t.id === id);
    expect(task(ids.a)).toMatchObject({ name: 'Behind', status: 'InProgress' });
    expect(task(ids.b)).toMatchObject({ progress: 50, status: 'InProgress' });
    expect(task(ids.c)).toBeUndefined();
    expect(service.filter((t) => t.name === 'Created')).toHaveLength(1);
  }, 120_000);
});
