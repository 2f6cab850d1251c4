import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutboxRepository } from '../../src/store/outbox.js';
import { openDatabase } from '../../src/store/database.js';
import { tempDir } from '../fixtures/db.js';
import { join } from 'node:path';
import { cli } from './in-process-cli.js';
import { newTaskJson } from './tasks.js';
import { outboxItems } from '../fixtures/outbox.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('projmirror enqueue', () => {
  it('queues an item and prints its id and idempotency key', async () => {
    const db = join(tempDir(), 'm.sqlite');
    const body = newTaskJson('Pour');
    const created = await cli(
      'enqueue',
      'task.create',
      '--project',
      'p_1',
      '--body',
      body,
      '--db',
      db,
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const [id, key] = created.stdout.trim().split(' ');
    const updated = await cli(
      'enqueue',
      'task.update',
      '--project',
      'p_1',
      '--target',
      't_1',
      '--body',
      '{"progress":50}',
      '--db',
      db,
      '--json',
    );
    expect(updated.code).toBe(0);
    const second = JSON.parse(updated.stdout) as { id: number; idempotencyKey: string };
    const mirror = openDatabase(db);
    try {
      expect(await new OutboxRepository(mirror).get(Number(id))).toMatchObject({
        op: 'task.create',
        idempotencyKey: key,
        body,
      });
      expect(await new OutboxRepository(mirror).get(second.id)).toMatchObject({
        op: 'task.update',
        targetId: 't_1',
        idempotencyKey: second.idempotencyKey,
      });
    } finally {
      mirror.close();
    }
  });

  it('exits 2 with one line on an unknown op, a body that is not JSON, or a missing target', async () => {
    const db = join(tempDir(), 'm.sqlite');
    const cases = [
      [['enqueue', 'task.explode', '--project', 'p_1'], /unknown op "task.explode"/],
      [
        ['enqueue', 'task.create', '--project', 'p_1', '--body', '{name:'],
        /--body "\{name:" is not JSON/,
      ],
      [['enqueue', 'task.delete', '--project', 'p_1'], /task.delete needs a target id/],
      [
        ['enqueue', 'task.create', '--project', 'p_1', '--body', '{"name":1}'],
        /a new task needs startDate, endDate, status/,
      ],
      [['enqueue', 'task.create', '--body', '{"name":"A"}'], /project/],
    ] as const;
    for (const [argv, message] of cases) {
      const result = await cli(...argv, '--db', db);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
    }
    const mirror = openDatabase(db);
    expect(await outboxItems(mirror)).toEqual([]);
    mirror.close();
  });
});

describe('projmirror outbox', () => {
  it('lists, retries and drops items', async () => {
    const db = join(tempDir(), 'm.sqlite');
    await cli('enqueue', 'task.create', '--project', 'p_1', '--body', newTaskJson('A'), '--db', db);
    await cli('enqueue', 'task.delete', '--project', 'p_1', '--target', 't_1', '--db', db);
    const mirror = openDatabase(db);
    mirror
      .prepare(
        `UPDATE outbox SET state = 'failed', attempts = 2, last_error = 'not_found: gone' WHERE id = 2`,
      )
      .run();

    const text = await cli('outbox', 'list', '--db', db);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^1 {2}pending {2}task\.create {2}p_1 {2}- {2}attempts=0 /);
    expect(lines[1]).toMatch(
      /^2 {2}failed {2}task\.delete {2}p_1 {2}t_1 {2}attempts=2 .*error="not_found: gone"$/,
    );
    expect(lines[2]).toMatch(
      /^1 pending, 0 sending, 0 done, 1 failed, 0 conflict, 0 discarded; oldest pending queued \d+ s ago$/,
    );

    const failed = await cli('outbox', 'list', '--state', 'failed', '--json', '--db', db);
    expect(JSON.parse(failed.stdout)).toEqual([
      expect.objectContaining({ id: 2, state: 'failed', body: {}, lastError: 'not_found: gone' }),
    ]);

    expect(await cli('outbox', 'retry', '2', '--db', db)).toMatchObject({ code: 0 });
    expect(await new OutboxRepository(mirror).get(2)).toMatchObject({
      state: 'pending',
      attempts: 2,
    });
    mirror.prepare(`UPDATE outbox SET state = 'sending' WHERE id = 1`).run();
    const refused = await cli('outbox', 'drop', '1', '--db', db);
    expect(refused).toMatchObject({ code: 2 });
    expect(refused.stderr).toMatch(/outbox item 1 is sending/);
    expect(await cli('outbox', 'drop', '2', '--db', db)).toMatchObject({ code: 0 });
    expect((await outboxItems(mirror)).map((item) => item.id)).toEqual([1]);
    expect((await cli('outbox', 'retry', '--db', db)).stderr).toMatch(/needs an item id/);
    expect((await cli('outbox', 'drop', '7', '--db', db)).stderr).toMatch(/no outbox item 7/);
    mirror.close();
  });
});
