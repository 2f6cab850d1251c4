/**
 * Local edits never silently overwrite newer remote changes (issue 21), against the real
 * simulator over HTTP and a real SQLite file: the base each item records when queued (also by a
 * plain SQL INSERT), the check before sending for every op that has a base, the policy
 * `overwrite`, items waiting behind a conflict on the same record only, and both resolutions.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/domain/index.js';
import { Mirror } from '../../src/mirror/index.js';
import { OutboxPusher, type OnConflict } from '../../src/outbox/index.js';
import { enqueue, resolveOutboxItem } from '../../src/store/outbox-queue/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { openDatabase } from '../../src/store/database.js';
import { outboxItems } from '../fixtures/outbox.js';
import { tempDatabase } from '../fixtures/db.js';
import { simulatorRemote, startTestSimulator } from '../fixtures/sim.js';
import { DELETED_TARGETS, makeRecords } from './deleted-targets.js';
import { storeOver } from '../fixtures/store.js';

const logger = pino({ level: 'silent' });

/** A synced mirror of a one-project simulator, a queue and a push with either policy. */
async function setup(sim: Simulator) {
  const { db, file } = tempDatabase();
  const remote = simulatorRemote(sim);
  const store = storeOver(db, systemClock);
  const mirror = new Mirror({ store: store.mirror, remote, clock: systemClock, logger });
  expect((await mirror.syncAll()).ok).toBe(true);
  const projectId = sim.service.listProjects()[0]!.id;
  const tasks = sim.service.listTasks(projectId);
  const queue = async (op: string, body: unknown, targetId: string | null = null) =>
    (await enqueue(db, { op, projectId, targetId, body }, Date.now())).id;
  const push = (onConflict: OnConflict = 'hold') =>
    new OutboxPusher({ store, remote, clock: systemClock, logger, onConflict }).pushOnce();
  const item = async (id: number) => (await outboxItems(db)).find((row) => row.id === id)!;
  return { db, file, projectId, tasks, queue, push, item, sync: () => mirror.syncAll() };
}

function json(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

function writesOf(sim: Simulator): number {
  return sim.requestLog.entries.filter((entry) => entry.method !== 'GET').length;
}

describe('the base of an item', () => {
  it('is recorded by a plain SQL INSERT too, with the derived field, and says when the target is absent', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const { db, projectId, tasks } = await setup(sim);
    const task = sim.service.getTask(tasks[0]!.id)!;
    const insert = db.prepare(
      'INSERT INTO outbox (op, project_id, target_id, body) VALUES (?, ?, ?, ?)',
    );
    const read = db.prepare('SELECT base FROM outbox WHERE id = ?').pluck();
    const base = (op: string, target: string | null, body: string) =>
      json(read.get(insert.run(op, projectId, target, body).lastInsertRowid) as string | null);
    expect(base('task.update', task.id, '{"status":"Done"}')).toEqual({
      record: 'present',
      values: { status: task.status, progress: task.progress },
    });
    expect(base('task.update', task.id, '{"name":"x"}')).toEqual({
      record: 'present',
      values: { name: task.name },
    });
    expect(base('task.set_assignees', task.id, '{"assigneeIds":[]}')).toEqual({
      record: 'present',
      values: { assigneeIds: task.assigneeIds },
    });
    expect(base('task.update', 't_missing', '{"progress":5}')).toEqual({ record: 'absent' });
    expect(base('task.update', task.id, 'not json')).toBeNull();
    expect(base('task.create', null, '{"name":"n"}')).toBeNull();
    expect(base('task.delete', task.id, '{}')).toBeNull();
  });
});

describe('the check before sending', () => {
  it('holds a status change whose task a colleague marked Done, naming the field and the three values', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const projectId = sim.service.listProjects()[0]!.id;
    const taskId = sim.service.listTasks(projectId)[0]!.id;
    sim.service.updateTask(taskId, { status: 'InProgress', progress: 40 });
    const { db, queue, push, item } = await setup(sim);
    const id = await queue('task.update', { status: 'NotStarted' }, taskId);
    sim.service.updateTask(taskId, { status: 'Done' });
    const writes = writesOf(sim);
    expect(await push()).toMatchObject({ conflicts: 1, done: 0, rereads: 1 });
    expect(writesOf(sim)).toBe(writes);
    expect(sim.service.getTask(taskId)!.status).toBe('Done');
    const held = await item(id);
    expect(held.state).toBe('conflict');
    expect(held.lastError).toBe(
      'conflict: status was InProgress when queued, is Done on the service; progress was 40 when queued, is 100 on the service',
    );
    expect(json(held.conflict)).toEqual({
      fields: 'status,progress',
      base: { status: 'InProgress', progress: 40 },
      local: { status: 'NotStarted', progress: 0 },
      remote: { status: 'Done', progress: 100 },
    });
    expect(db.prepare('SELECT * FROM v_outbox_conflicts').all()).toEqual([
      {
        id,
        op: 'task.update',
        project_id: projectId,
        target_id: taskId,
        fields: 'status,progress',
        base: '{"status":"InProgress","progress":40}',
        local: '{"status":"NotStarted","progress":0}',
        remote: '{"status":"Done","progress":100}',
        last_error: held.lastError,
        queued_at: held.createdAt,
      },
    ]);
  });

  it('sends a change whose fields nobody else touched: a colleague’s rename does not block it', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const { tasks, queue, push, item } = await setup(sim);
    const taskId = tasks[0]!.id;
    const id = await queue('task.update', { progress: 100 }, taskId);
    sim.service.updateTask(taskId, { name: 'Renamed by a colleague' });
    expect(await push()).toMatchObject({ done: 1, conflicts: 0 });
    expect((await item(id)).state).toBe('done');
    expect(sim.service.getTask(taskId)).toMatchObject({
      name: 'Renamed by a colleague',
      progress: 100,
      status: 'Done',
    });
  });

  it('sends a change the service already made, and two queued edits of one field in order', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const { tasks, queue, push, item } = await setup(sim);
    const [a, b] = [tasks[0]!.id, tasks[1]!.id];
    const same = await queue('task.update', { status: 'Done' }, a);
    sim.service.updateTask(a, { status: 'Done' });
    const first = await queue('task.update', { name: 'First' }, b);
    const second = await queue('task.update', { name: 'Second' }, b);
    expect(await push()).toMatchObject({ done: 3, conflicts: 0 });
    expect([
      (await item(same)).state,
      (await item(first)).state,
      (await item(second)).state,
    ]).toEqual(['done', 'done', 'done']);
    expect(sim.service.getTask(b)!.name).toBe('Second');
  });

  it('holds set_assignees, resource.update and dependency.set that the service changed under them', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, dependenciesPerProject: 0 });
    const projectId = sim.service.listProjects()[0]!.id;
    const resource = sim.service.createResource(projectId, { name: 'Crane' });
    const member = sim.service.addMember(projectId, { name: 'Ada' });
    const { tasks, queue, push, item } = await setup(sim);
    const [a, b, c] = tasks.map((t) => t.id);
    const assign = await queue('task.set_assignees', { assigneeIds: [member.id] }, a!);
    const rename = await queue('resource.update', { name: 'Big crane' }, resource.id);
    const deps = await queue('dependency.set', [{ predecessorId: a, successorId: b, type: 'FS' }]);
    sim.service.setAssignees(a!, []);
    sim.service.updateResource(resource.id, { name: 'Tower crane' });
    sim.service.setDependencies(projectId, [{ predecessorId: b!, successorId: c!, type: 'FS' }]);
    expect(await push()).toMatchObject({ conflicts: 3, done: 0 });
    expect((await item(assign)).lastError).toMatch(
      /^conflict: assigneeIds was \[.*\] when queued, is \[\]/,
    );
    expect((await item(rename)).lastError).toBe(
      'conflict: name was Crane when queued, is Tower crane on the service',
    );
    expect((await item(deps)).lastError).toMatch(
      /^conflict: dependencies was \[\] when queued, is \[/,
    );
  });

  it.each(DELETED_TARGETS)(
    'holds $op of a record deleted on the service instead of a silent 404',
    async (target) => {
      const sim = await startTestSimulator({ projects: 1, tasks: 2, dependenciesPerProject: 0 });
      const records = makeRecords(sim);
      const { queue, push, item } = await setup(sim);
      const id = await queue(target.op, target.body(records), target.target(records));
      target.remove(sim, records);
      const writes = writesOf(sim);
      expect(await push()).toMatchObject({ conflicts: 1, failed: 0, done: 0, rereads: 1 });
      expect(writesOf(sim)).toBe(writes);
      expect(await item(id)).toMatchObject({
        state: 'conflict',
        lastError: target.lastError(records),
      });
      expect(json((await item(id)).conflict)).toMatchObject({ fields: target.fields });
      if (target.fields === 'record')
        expect(json((await item(id)).conflict)).toMatchObject({ remote: null });
    },
  );

  it('overwrites with --on-conflict overwrite (last writer wins), with no read first', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const { tasks, queue, push, item } = await setup(sim);
    const taskId = tasks[0]!.id;
    const id = await queue('task.update', { status: 'InProgress' }, taskId);
    sim.service.updateTask(taskId, { status: 'Done' });
    expect(await push('overwrite')).toMatchObject({ done: 1, conflicts: 0, rereads: 0 });
    expect((await item(id)).state).toBe('done');
    expect(sim.service.getTask(taskId)!.status).toBe('InProgress');
  });

  it('lets items of other records go past a conflict, and holds those of the same record', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const { tasks, queue, push, item } = await setup(sim);
    const [a, b] = [tasks[0]!.id, tasks[1]!.id];
    const held = await queue('task.update', { status: 'InProgress' }, a);
    const behind = await queue('task.update', { name: 'Behind' }, a);
    const other = await queue('task.update', { name: 'Other' }, b);
    sim.service.updateTask(a, { status: 'Done' });
    const report = await push();
    expect(report).toMatchObject({ conflicts: 1, done: 1, pending: 1 });
    expect([
      (await item(held)).state,
      (await item(behind)).state,
      (await item(other)).state,
    ]).toEqual(['conflict', 'pending', 'done']);
  });
});

describe('resolving a conflict', () => {
  it('--keep-local sends the item as queued; --keep-remote discards it with a reason', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 2 });
    const { db, file, tasks, queue, push, item } = await setup(sim);
    const [a, b] = [tasks[0]!.id, tasks[1]!.id];
    const local = await queue('task.update', { status: 'InProgress' }, a);
    const remote = await queue('task.update', { name: 'Mine' }, b);
    sim.service.updateTask(a, { status: 'Done' });
    sim.service.updateTask(b, { name: 'Theirs' });
    expect(await push()).toMatchObject({ conflicts: 2 });
    await expect(resolveOutboxItem(db, 999, 'keep-local', Date.now())).rejects.toThrow(
      /no outbox item/,
    );
    await resolveOutboxItem(db, local, 'keep-local', Date.now());
    await resolveOutboxItem(db, remote, 'keep-remote', Date.now());
    await expect(resolveOutboxItem(db, remote, 'keep-local', Date.now())).rejects.toThrow(
      /is discarded; only items in conflict resolve/,
    );
    expect(await item(local)).toMatchObject({ state: 'pending', conflict: null });
    expect(json((await item(local)).base)).toEqual({
      record: 'present',
      values: { status: 'Done', progress: 100 },
    });
    expect(await push()).toMatchObject({ done: 1, conflicts: 0 });
    expect((await item(local)).state).toBe('done');
    expect(sim.service.getTask(a)!.status).toBe('InProgress');
    expect(await item(remote)).toMatchObject({ state: 'discarded' });
    expect((await item(remote)).lastError).toMatch(
      /^discarded \(--keep-remote\): the service's values kept; conflict: name was/,
    );
    expect(sim.service.getTask(b)!.name).toBe('Theirs');
    db.close();
    const reopened = openDatabase(file);
    expect(
      reopened.prepare("SELECT count(*) AS n FROM outbox WHERE state = 'conflict'").get(),
    ).toEqual({ n: 0 });
    reopened.close();
  });
});
