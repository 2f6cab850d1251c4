/**
 * A mirror file that cannot be written, or that the disk cannot grow: each command fails with one
 * line on stderr naming the problem and exit code 1, never a stack trace, and the file is left
 * intact (the same bytes, for a read-only file; the last consistent state, for a full disk).
 *
 * How the faults are made (child/faulty-database.mjs): these tests may run as root, which file
 * permissions do not stop, and CI may not allow mounts; so the child's SQLite connections are
 * opened read-only (what SQLite does by itself with a file it may not write), or given a
 * `PRAGMA max_page_count` just above the file's size, past which SQLite answers SQLITE_FULL
 * exactly as on a full disk.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueue } from '../../src/store/outbox-queue/index.js';
import type { Simulator } from '../../src/sim/index.js';
import { openDatabase } from '../../src/store/database.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import {
  checkIntegrity,
  differences,
  inProcess,
  remoteArgs,
  spawnCli,
  type CliExit,
} from './helpers.js';
import { outboxItems } from '../fixtures/outbox.js';

const TOKEN = 'glt_test_reliability_storage';

/** A mirror of `sim` made in this process, closed; returns its path. */
async function syncedMirror(sim: Simulator): Promise<string> {
  const file = join(tempDir(), 'mirror.sqlite');
  expect((await inProcess('sync', sim, file)).ok).toBe(true);
  return file;
}

function fileDigest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Exit 1 and exactly one stderr line, matching `line`, with no stack trace. */
function expectOneLineFailure(exit: CliExit, line: RegExp): void {
  expect(exit.code).toBe(1);
  expect(exit.stderr).toMatch(line);
  expect(exit.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(exit.stderr).not.toMatch(/\n\s+at /);
}

describe('a mirror file that cannot be written', () => {
  it('read-only: sync, push and run stop with one line and leave the file as it was', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 200, tokens: [TOKEN] });
    const file = await syncedMirror(sim);
    const db = openDatabase(file);
    await enqueue(
      db,
      { op: 'task.update', projectId: 'p_1', targetId: 't_1', body: { progress: 5 } },
      0,
    );
    db.close();
    const before = fileDigest(file);
    sim.service.updateTask(sim.service.listTasks('p_1')[0]!.id, { name: 'changed meanwhile' });

    const args = remoteArgs(sim, file);
    const [sync, push, run, status] = await Promise.all([
      spawnCli(['sync', ...args], 'readonly').exit,
      spawnCli(['push', ...args], 'readonly').exit,
      spawnCli(['run', ...args], 'readonly').exit,
      spawnCli(['status', '--db', file], 'readonly').exit,
    ]);
    const readOnly = new RegExp(`^projmirror: database ${file} is read-only: .*readonly`);
    for (const exit of [sync, push, run]) expectOneLineFailure(exit, readOnly);
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(status.stdout).toContain('p_1');

    expect(fileDigest(file)).toBe(before);
    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
  }, 30_000);

  it('full disk: sync and push fail with one line, the last consistent state stays, then recover', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 300, tokens: [TOKEN] });
    const file = await syncedMirror(sim);
    sim.service.seedTasks('p_1', 1_500);
    const db = openDatabase(file);
    const item = await enqueue(
      db,
      { op: 'resource.create', projectId: 'p_1', body: { name: 'x'.repeat(20_000) } },
      0,
    );
    db.close();
    const args = remoteArgs(sim, file);
    const fresh = join(tempDir(), 'fresh.sqlite');

    const [sync, push, create] = await Promise.all([
      spawnCli(['sync', ...args], { fullAfterPages: 2 }).exit,
      spawnCli(['push', ...args], { fullAfterPages: 0 }).exit,
      spawnCli(['sync', ...remoteArgs(sim, fresh)], { fullAfterPages: 1 }).exit,
    ]);
    expectOneLineFailure(sync, /^projmirror: project p_1: .*database or disk is full\n$/);
    expectOneLineFailure(push, /^projmirror: .*database or disk is full/);
    expectOneLineFailure(create, /^projmirror: cannot prepare database .*database or disk is full/);

    expect(checkIntegrity(file)).toEqual({ integrity: 'ok', foreignKeyProblems: 0 });
    const after = openDatabase(file);
    try {
      expect(after.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(300);
      expect((await outboxItems(after)).find((entry) => entry.id === item.id)?.state).not.toBe(
        'done',
      );
    } finally {
      after.close();
    }

    // Room again: the push lands (its write makes the token's integration member), a sync follows.
    expect(await inProcess('push', sim, file)).toMatchObject({ done: 1, pending: 0 });
    expect((await inProcess('sync', sim, file)).ok).toBe(true);
    const done = openDatabase(file);
    try {
      expect(differences(done, sim)).toEqual([]);
      expect((await outboxItems(done)).map((entry) => entry.state)).toEqual(['done']);
    } finally {
      done.close();
    }
  }, 40_000);
});
