import { describe, expect, it } from 'vitest';
import { countWrites, mirroredTaskIds, put, setup, snapshot } from './helpers.js';

describe('single-page polls', () => {
  it('costs one request when the page is unchanged (304) and writes nothing', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    const before = snapshot(db);
    remote.calls.length = 0;

    const result = await mirror.pollPage('p1', 2);

    expect(result).toMatchObject({
      requests: 1,
      notModified: true,
      outcome: { kind: 'unchanged' },
    });
    expect(remote.calls).toEqual([
      expect.objectContaining({ route: 'listTasks', page: 2, status: 304 }),
    ]);
    expect(snapshot(db)).toEqual(before);
  });

  it('writes the changed rows of a page and keeps its new ETag, deleting nothing', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    remote.tasks.get('p1')![13]!.name = 'renamed';
    remote.tasks.get('p1')![13]!.updatedAt = '2026-02-01T00:00:00.000Z';
    const writes = countWrites(db);

    const result = await mirror.pollPage('p1', 2);

    // With the written task's updatedAt, for the staleness histogram.
    expect(result.outcome).toEqual({
      kind: 'written',
      rows: 1,
      changedAt: [Date.parse('2026-02-01T00:00:00.000Z')],
    });
    const name = db.prepare('SELECT name FROM tasks WHERE id = ?').pluck();
    expect(name.get('p1-t14')).toBe('renamed');
    // The task row and its history row; nothing else.
    expect(writes()).toBe(2);
    expect(mirroredTaskIds(db, 'p1')).toHaveLength(25);
    // The kept page now answers 304.
    remote.calls.length = 0;
    expect((await mirror.pollPage('p1', 2)).notModified).toBe(true);
  });

  it('spends no request on a page while a pass of its project is in flight, which reads it', async () => {
    const { remote, mirror, store } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    remote.calls.length = 0;
    const pass = await store.passBegin('p1');

    const busy = await mirror.pollPage('p1', 2);

    expect(busy).toMatchObject({ requests: 0, notModified: false, outcome: { kind: 'busy' } });
    expect(remote.calls).toEqual([]);
    await pass.end();
    expect(await mirror.pollPage('p1', 2)).toMatchObject({
      requests: 1,
      notModified: true,
      outcome: { kind: 'unchanged' },
    });
  });

  it('never writes over a copy with a later updatedAt (an event got there first)', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    const served = remote.tasks.get('p1')![3]!;
    served.name = 'older';
    served.updatedAt = '2026-02-01T00:00:00.000Z';
    await put(mirror, 'p1', 'task', {
      ...served,
      name: 'newer',
      updatedAt: '2026-03-01T00:00:00.000Z',
    });

    const result = await mirror.pollPage('p1', 1);

    expect(result.outcome).toEqual({ kind: 'unchanged' });
    expect(db.prepare('SELECT name FROM tasks WHERE id = ?').pluck().get('p1-t4')).toBe('newer');
  });

  it('asks for a full pass when rows shifted between pages, and writes nothing', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    // One created and one deleted: the total stays, the rows of page 2 shift.
    const tasks = remote.tasks.get('p1')!;
    const created = { ...tasks[0]!, id: 'p1-new', name: 'new' };
    tasks.splice(5, 1);
    tasks.push(created);
    const before = snapshot(db);

    const result = await mirror.pollPage('p1', 2);

    expect(result.outcome).toEqual({ kind: 'escalate', reason: 'the rows of page 2 shifted' });
    expect(snapshot(db)).toEqual(before);
    const pass = await mirror.syncProject('p1', { fresh: true });
    expect(pass.ok).toBe(true);
    expect(mirroredTaskIds(db, 'p1')).toEqual(tasks.map((t) => t.id).sort());
  });

  it('asks for a full pass when a task was added (X-Total-Count moved), even on a 304', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    const tasks = remote.tasks.get('p1')!;
    tasks.push({ ...tasks[0]!, id: 'p1-added', name: 'added' });
    const before = snapshot(db);

    const result = await mirror.pollPage('p1', 1);

    expect(result).toMatchObject({
      notModified: true,
      outcome: { kind: 'escalate', reason: 'X-Total-Count moved from 25 to 26' },
    });
    expect(snapshot(db)).toEqual(before);
  });

  it('asks for a full pass of a project never passed, and of a page not kept', async () => {
    const { remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    expect((await mirror.pollPage('p1', 1)).outcome.kind).toBe('escalate');
    await mirror.syncProject('p1');
    expect((await mirror.pollPage('p1', 4)).outcome).toEqual({
      kind: 'escalate',
      reason: 'page 4 is not kept',
    });
  });

  it('polls the side lists on their own: the project and three lists, four requests', async () => {
    const { db, remote, mirror } = setup({ pageSize: 10 });
    remote.seed('p1', 25);
    await mirror.syncProject('p1');
    remote.resources.get('p1')!.push({ id: 'p1-r2', name: 'Hoist' });
    remote.calls.length = 0;

    const result = await mirror.pollLists('p1');

    expect(result).toEqual({ projectId: 'p1', requests: 4, changed: true });
    expect(remote.count('listTasks')).toBe(0);
    const ids = db.prepare('SELECT id FROM resources WHERE project_id = ? ORDER BY id').pluck();
    expect(ids.all('p1')).toEqual(['p1-r1', 'p1-r2']);
    expect((await mirror.pollLists('p1')).changed).toBe(false);
  });
});
