/**
 * The outbox against the real simulator over HTTP: exactly-once creates across dropped answers
 * and a SIGKILL mid-push, and confirmed edits landing in the mirror with the service's ids.
 */
import { storeOver } from '../fixtures/store.js';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/index.js';
import { Mirror } from '../../src/mirror/index.js';
import { OutboxPusher, type PushReport } from '../../src/outbox/index.js';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import { OutboxRepository } from '../../src/store/outbox.js';
import type { Simulator } from '../../src/sim/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase, tempDir } from '../fixtures/db.js';
import { simulatorRemote, startTestSimulator } from '../fixtures/sim.js';
import { drive } from '../remote/stand-in.js';
import { cli } from './in-process-cli.js';
import { newTask } from './tasks.js';
import { outboxItems } from '../fixtures/outbox.js';

const logger = pino({ level: 'silent' });
const REGISTER = fileURLToPath(new URL('../fixtures/child/register.mjs', import.meta.url));
const CLI_ENTRY = fileURLToPath(new URL('../fixtures/child/run-cli.ts', import.meta.url));

/** A synced mirror of the simulator and a pusher that writes through the mirror's writer. */
async function setup(sim: Simulator) {
  const { db, file } = tempDatabase();
  const remote = simulatorRemote(sim);
  const store = storeOver(db, systemClock);
  const mirror = new Mirror({ store: store.mirror, remote, clock: systemClock, logger });
  expect((await mirror.syncAll()).ok).toBe(true);
  const clock = new FakeClock();
  const pusher = new OutboxPusher({ store, remote, clock, logger });
  const projectId = sim.service.listProjects()[0]?.id ?? '';
  const queue = async (op: string, body: unknown, targetId: string | null = null) =>
    (await enqueue(db, { op, projectId, targetId, body }, Date.now())).id;
  /** Passes (each retrying within its run on the fake clock) until nothing is pending. */
  const drain = async (): Promise<PushReport[]> => {
    const reports: PushReport[] = [];
    for (let pass = 0; pass < 8; pass++) {
      const report = await drive(pusher.pushOnce({ ignoreBackoff: true }), clock);
      reports.push(report);
      if (report.pending === 0) break;
    }
    return reports;
  };
  return { db, file, remote, projectId, queue, drain };
}

const mirrorRows = (db: SqliteDb, sql: string, ...params: unknown[]) =>
  db.prepare(sql).all(...params);

describe('outbox against the simulator', () => {
  it('never duplicates a create whose answer was dropped after it committed', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2, dependenciesPerProject: 0 });
    const { db, remote, projectId, queue, drain } = await setup(sim);
    const [first, second] = sim.service.listTasks(projectId);
    const dep = { predecessorId: first?.id, successorId: second?.id, type: 'FS' };
    const items = [
      await queue('task.create', newTask('Dropped once')),
      await queue('resource.create', { name: 'Crane' }),
      await queue('dependency.add', dep),
    ];
    for (const route of ['createTask', 'createResource', 'addDependency'] as const) {
      sim.faults.failNext({ route, kind: 'commitThenDrop' });
    }
    const reports = await drain();
    expect(reports).toMatchObject([{ retried: 3, done: 3, pending: 0 }]);
    expect((await outboxItems(db)).map((item) => [item.state, item.attempts])).toEqual(
      items.map(() => ['done', 2]),
    );

    const created = sim.service.listTasks(projectId).filter((t) => t.name === 'Dropped once');
    expect(created).toHaveLength(1);
    const resources = sim.service.listResources(projectId).filter((r) => r.name === 'Crane');
    expect(resources).toHaveLength(1);
    expect(sim.service.listDependencies(projectId)).toHaveLength(1);
    const keys = sim.requestLog
      .filter({ route: 'createTask' })
      .map((entry) => entry.headers['idempotency-key']);
    expect(keys).toEqual([
      (await new OutboxRepository(db).get(items[0] ?? 0))?.idempotencyKey,
      keys[0],
    ]);

    expect(mirrorRows(db, 'SELECT id FROM tasks WHERE name = ?', 'Dropped once')).toEqual([
      { id: created[0]?.id },
    ]);
    expect(mirrorRows(db, `SELECT id FROM resources WHERE name = 'Crane'`)).toEqual([
      { id: resources[0]?.id },
    ]);
    const [serviceDep] = sim.service.listDependencies(projectId);
    expect(mirrorRows(db, 'SELECT id, predecessor_id FROM dependencies')).toEqual([
      { id: serviceDep?.id, predecessor_id: first?.id },
    ]);
    await remote.close();
  });

  it('lands queued edits on the service and the mirror alike, in order; read-only fails unsent', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 3, readOnlyProjects: 1 });
    const { db, remote, projectId, queue, drain } = await setup(sim);
    const [keep, drop] = sim.service.listTasks(projectId);
    const member = sim.service.listMembers(projectId).find((m) => m.kind !== 'integration');
    const created = await queue('task.create', newTask('Fresh', { progress: 10 }));
    await queue('task.update', { progress: 40 }, keep?.id ?? '');
    await queue('task.update', { status: 'Done' }, keep?.id ?? '');
    await queue('task.set_assignees', { assigneeIds: [member?.id] }, keep?.id ?? '');
    await queue('task.delete', {}, drop?.id ?? '');
    const readOnly = sim.service.listProjects().find((p) => p.readOnlyReason !== null);
    const refused = (
      await enqueue(
        db,
        { op: 'task.create', projectId: readOnly?.id ?? '', body: newTask('Never') },
        Date.now(),
      )
    ).id;
    const writesBefore = sim.requestLog.filter({ where: (e) => e.method !== 'GET' }).length;

    const [report] = await drain();
    expect(report).toMatchObject({ sent: 5, done: 5, failed: 1, pending: 0 });
    expect((await new OutboxRepository(db).get(refused))?.lastError).toBe(
      `project_read_only: project ${readOnly?.id} is read-only (archived)`,
    );
    expect(sim.requestLog.filter({ where: (e) => e.method !== 'GET' }).length - writesBefore).toBe(
      5,
    );

    const serviceTasks = sim.service.listTasks(projectId);
    const mirrored = mirrorRows(
      db,
      'SELECT id, name, status, progress FROM tasks WHERE project_id = ? ORDER BY id',
      projectId,
    );
    const expected = serviceTasks
      .map(({ id, name, status, progress }) => ({ id, name, status, progress }))
      .sort((a, b) => a.id.localeCompare(b.id));
    expect(mirrored).toEqual(expected);
    expect(serviceTasks.find((t) => t.id === keep?.id)).toMatchObject({
      status: 'Done',
      progress: 100,
      assigneeIds: [member?.id],
    });
    expect(serviceTasks.some((t) => t.id === drop?.id)).toBe(false);
    const result = JSON.parse((await new OutboxRepository(db).get(created))?.result ?? '{}') as {
      id: string;
    };
    expect(serviceTasks.find((t) => t.id === result.id)?.name).toBe('Fresh');
    const assignees = mirrorRows(
      db,
      'SELECT member_id FROM task_assignees WHERE task_id = ?',
      keep?.id,
    );
    expect(assignees).toEqual([{ member_id: member?.id }]);
    await remote.close();
  });

  it('push exits 1 while an item is left pending, 0 once none is; refusals are named', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const { db, file, remote, queue } = await setup(sim);
    await remote.close();
    const tokenFile = writeTokenFile(sim);
    const refused = await queue('task.create', newTask('Nobody', { assigneeIds: ['m_nobody'] }));
    const later = await queue('task.create', newTask('Later'));
    sim.faults.failNext({ route: 'createTask', kind: 'status', status: 503 });
    const args = ['push', '--base-url', sim.baseUrl, '--token-file', tokenFile, '--db', file];
    args.push('--log-level', 'silent');

    const busy = await cli(...args, '--item-retry-window-ms', '0');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toBe('projmirror: push: 2 items left pending\n');
    expect((await outboxItems(db)).map((item) => [item.state, item.attempts])).toEqual([
      ['pending', 1],
      ['pending', 0],
    ]);

    const done = await cli(...args);
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/^projmirror: push: 1 item failed \(see projmirror outbox list/);
    expect((await new OutboxRepository(db).get(refused))?.lastError).toMatch(
      /^validation_failed: .*m_nobody/,
    );
    expect((await new OutboxRepository(db).get(later))?.state).toBe('done');
    expect(done.stderr).not.toContain(sim.token);
  });

  it('push retries a dropped create within the run; its bound is checked and documented', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const { db, file, remote, queue } = await setup(sim);
    await remote.close();
    const tokenFile = writeTokenFile(sim);
    const id = await queue('task.create', newTask('Dropped, then retried'));
    sim.faults.failNext({ route: 'createTask', kind: 'drop' });
    const args = ['push', '--base-url', sim.baseUrl, '--token-file', tokenFile, '--db', file];
    args.push('--log-level', 'silent');

    for (const bad of ['soon', '-5', '1.5']) {
      const refused = await cli(...args, `--item-retry-window-ms=${bad}`);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /^projmirror: --item-retry-window-ms .+ must be a whole number of milliseconds, 0 or more\n$/,
      );
    }
    expect(sim.requestLog.count({ route: 'createTask' })).toBe(0);

    expect(await cli(...args)).toMatchObject({ code: 0, stderr: '' });
    expect(await new OutboxRepository(db).get(id)).toMatchObject({ state: 'done', attempts: 2 });
    const help = await spawnCli(['push', '--help']).exit;
    expect(help.stdout).toMatch(/--item-retry-window-ms +how long to keep retrying one item/);
    expect(help.stdout).toMatch(/\[default: 120000\]/);
  });

  it('pushes each item exactly once across SIGKILLs before and after the service applied one', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 1 });
    const { db, file, remote, projectId, queue } = await setup(sim);
    await remote.close();
    const names = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const ids: number[] = [];
    for (const name of names) ids.push(await queue('task.create', newTask(name)));
    // The 2nd create request (k1) is held at the service and the pusher killed while it waits
    // (never applied). At the 6th (k4, after k1 resent, k2, k3) the test holds the mirror's write
    // lock, so the service applies it but the pusher cannot record it done before it is killed.
    let arrivals = 0;
    const heldAt2 = signal();
    const lockedAt6 = signal();
    sim.faults.delay({
      route: 'createTask',
      ms: 1_000,
      count: Infinity,
      when: () => {
        arrivals += 1;
        if (arrivals === 6) {
          db.exec('BEGIN IMMEDIATE');
          lockedAt6.fire();
        }
        if (arrivals === 2) heldAt2.fire();
        return arrivals === 2;
      },
    });
    const states = async () => (await outboxItems(db)).map((item) => item.state);

    const tokenFile = writeTokenFile(sim);
    const first = runPush(file, sim, tokenFile);
    await heldAt2.fired;
    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');
    expect(await states()).toEqual(['done', 'sending', 'pending', 'pending', 'pending', 'pending']);

    const second = runPush(file, sim, tokenFile);
    await lockedAt6.fired;
    await until(() => sim.service.listTasks(projectId).some((t) => t.name === 'k4'));
    second.child.kill('SIGKILL');
    expect((await second.exit).signal).toBe('SIGKILL');
    db.exec('ROLLBACK');
    expect(await states()).toEqual(['done', 'done', 'done', 'done', 'sending', 'pending']);

    const args = ['--base-url', sim.baseUrl, '--token-file', tokenFile, '--db', file];
    const restarted = await cli('push', ...args, '--log-level', 'silent');
    expect(restarted).toMatchObject({ code: 0, stderr: '' });
    for (const name of names) {
      expect(sim.service.listTasks(projectId).filter((t) => t.name === name)).toHaveLength(1);
    }
    expect((await outboxItems(db)).map((item) => [item.id, item.state, item.attempts])).toEqual(
      ids.map((id, index) => [id, 'done', index === 1 || index === 4 ? 2 : 1]),
    );
    const k4Key = (await new OutboxRepository(db).get(ids[4] ?? 0))?.idempotencyKey;
    const k4Sends = sim.requestLog.filter({
      route: 'createTask',
      where: (entry) => entry.headers['idempotency-key'] === k4Key,
    });
    expect(k4Sends.map((entry) => entry.status)).toEqual([201, 201]);
    const mirrored = mirrorRows(db, `SELECT name FROM tasks WHERE name LIKE 'k_' ORDER BY name`);
    expect(mirrored.map((row) => (row as { name: string }).name)).toEqual(names);
  });
});

/** A one-shot signal: `fire()` resolves `fired`. */
function signal() {
  let fire = () => {};
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

/** Polls `condition` on real time (the simulator runs in this process) for up to 5 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 5_000; waited += 5) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(condition()).toBe(true);
}

/** The token of the simulator in a file, for `--token-file`. */
function writeTokenFile(sim: Simulator): string {
  const file = join(tempDir(), 'token');
  writeFileSync(file, `${sim.token}\n`, { mode: 0o600 });
  return file;
}

/** Runs `projmirror push` from source in a child. */
function runPush(dbFile: string, sim: Simulator, tokenFile: string) {
  return spawnCli(['push', '--base-url', sim.baseUrl, '--token-file', tokenFile, '--db', dbFile]);
}

/** Runs `projmirror ...args` from source in a child; `exit` resolves with its code, signal, output. */
function spawnCli(args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('PROJMIRROR_')),
  );
  const child = spawn(process.execPath, ['--import', REGISTER, CLI_ENTRY, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: string | null; stdout: string }>(
    (resolve) =>
      child.on('close', (code, signal) => {
        if (code !== 0 && signal === null) process.stderr.write(stderr);
        resolve({ code, signal, stdout });
      }),
  );
  return { child, exit };
}
