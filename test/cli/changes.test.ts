import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS, runCli, startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import { syncWithCli } from '../fixtures/synced.js';

const TOKEN = 'glt_test_cli_changes_0123456789';

interface Line {
  seq: number;
  committed_at: string;
  batch: number;
  entity: string;
  project_id: string;
  entity_id: string;
  op: string;
  data: Record<string, unknown> | null;
  fields: string[] | null;
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

/** A second `sync` of `sim` into `db` (the first made it). */
async function resync(dir: string, db: string, baseUrl: string): Promise<void> {
  const run = await runCli([
    'sync',
    '--base-url',
    baseUrl,
    '--token-file',
    join(dir, 'token'),
    '--db',
    db,
  ]);
  expect(run.code).toBe(0);
}

describe('projmirror changes', () => {
  it('prints a reload per backfilled project, then each change as NDJSON in seq order; --limit caps it', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [5, 3], tokens: [TOKEN] });
    const { dir, db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const first = await runCli(['changes', '--db', db]);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    const backfilled = lines(first.stdout);
    // A first backfill: one reload per project, no row per task.
    expect(
      backfilled
        .filter((line) => line.op === 'reload')
        .map((l) => l.project_id)
        .sort(),
    ).toEqual(
      sim.service
        .listProjects()
        .map((p) => p.id)
        .sort(),
    );
    expect(backfilled.filter((line) => line.entity === 'task')).toEqual([]);

    const [project] = sim.service.listProjects();
    const task = sim.service.listTasks(project!.id)[0]!;
    sim.service.updateTask(task.id, { name: 'Renamed by the test', progress: 40 });
    const created = sim.service.createTask(project!.id, { name: 'New one' });
    const gone = sim.service.listTasks(project!.id)[1]!;
    sim.service.deleteTask(gone.id);
    await resync(dir, db, sim.baseUrl);

    const cursor = backfilled.at(-1)!.seq;
    const after = await runCli(['changes', '--db', db, '--since', String(cursor)]);
    expect(after.code).toBe(0);
    const changes = lines(after.stdout);
    const seqs = changes.map((line) => line.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs.every((seq) => seq > cursor)).toBe(true);
    const byTask = (id: string) => changes.filter((l) => l.entity === 'task' && l.entity_id === id);
    const update = byTask(task.id);
    expect(update).toHaveLength(1);
    expect(update[0]).toMatchObject({ op: 'update', project_id: project!.id });
    expect(update[0]!.data).toMatchObject({ id: task.id, name: 'Renamed by the test' });
    expect(update[0]!.fields).toEqual(expect.arrayContaining(['name', 'progress']));
    expect(byTask(created.id)).toMatchObject([{ op: 'insert', data: { name: 'New one' } }]);
    expect(byTask(gone.id)).toMatchObject([{ op: 'delete', data: null, fields: null }]);
    // One pass, one transaction... or several; every change of one batch is contiguous.
    for (const line of changes) expect(Number.isInteger(line.batch)).toBe(true);
    expect(Date.parse(changes[0]!.committed_at)).not.toBeNaN();

    // A pass that changes nothing writes no change row.
    await resync(dir, db, sim.baseUrl);
    const again = await runCli(['changes', '--db', db, '--since', String(cursor)]);
    expect(again.stdout).toBe(after.stdout);

    const limited = await runCli([
      'changes',
      '--db',
      db,
      '--since',
      String(cursor),
      '--limit',
      '2',
    ]);
    expect(limited.code).toBe(0);
    expect(lines(limited.stdout)).toEqual(changes.slice(0, 2));

    const bad = await runCli(['changes', '--db', db, '--limit', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--limit 0/);
  });

  it('exits 4 with one line naming the oldest kept seq when the cursor is below what retention pruned', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, tokens: [TOKEN] });
    const { dir, db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const [project] = sim.service.listProjects();
    for (const task of sim.service.listTasks(project!.id)) {
      sim.service.updateTask(task.id, { progress: 55 });
    }
    await resync(dir, db, sim.baseUrl);
    const all = lines((await runCli(['changes', '--db', db])).stdout);
    expect(all.length).toBeGreaterThan(2);
    // Retention as the daemon runs it, past the first two rows: their committed_at made old.
    const file = new Database(db);
    const pruneTo = all[1]!.seq;
    file
      .prepare(`UPDATE changes SET committed_at = '2000-01-01T00:00:00.000Z' WHERE seq <= ?`)
      .run(pruneTo);
    file.close();
    const { ChangesRepository } = await import('../../src/store/changes.js');
    const writer = new Database(db);
    const removed = await new ChangesRepository(writer).prune(Date.parse('2026-01-01'), 30);
    writer.close();
    expect(removed).toBe(2);

    const expired = await runCli(['changes', '--db', db, '--since', '0']);
    expect(expired.code).toBe(4);
    expect(expired.stdout).toBe('');
    const message = expired.stderr.trim().split('\n');
    expect(message).toHaveLength(1);
    expect(message[0]).toContain(`oldest change kept is seq ${all[2]!.seq}`);
    expect(message[0]).toMatch(/re-read the tables, then continue with --since \d+/);
    expect(expired.stderr).not.toMatch(/\n\s+at /);

    // From the pruned horizon on, the rest is there, unmoved.
    const rest = await runCli(['changes', '--db', db, '--since', String(pruneTo)]);
    expect(rest.code).toBe(0);
    expect(lines(rest.stdout)).toEqual(all.slice(2));
  });

  it('exits 2 with one line naming the mirror when it has no change feed yet (an earlier schema)', async () => {
    const db = join(tempDir(), 'mirror.sqlite');
    const queued = await runCli([
      'enqueue',
      'task.update',
      '--project',
      'p1',
      '--target',
      't1',
      '--body',
      '{"name":"x"}',
      '--db',
      db,
    ]);
    expect(queued.code).toBe(0);
    // The feed as a mirror made before it had one: no table, no triggers writing it.
    const file = new Database(db);
    const triggers = file
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'trigger'")
      .pluck()
      .all();
    for (const name of triggers) file.exec(`DROP TRIGGER "${name}"`);
    file.exec('DROP TABLE changes');
    file.close();
    const run = await runCli(['changes', '--db', db]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toBe(
      `projmirror: --db ${db} has no change feed yet; run projmirror sync once to migrate it to schema version ${SCHEMA_VERSION}`,
    );
  });

  it('--follow prints changes as they commit, and exits 0 once its pipe closes', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, tokens: [TOKEN] });
    const { dir, db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const cursor = lines((await runCli(['changes', '--db', db])).stdout).at(-1)!.seq;
    const follower = startCli(['changes', '--db', db, '--since', String(cursor), '--follow']);
    const [project] = sim.service.listProjects();
    const task = sim.service.listTasks(project!.id)[0]!;
    sim.service.updateTask(task.id, { name: 'Followed' });
    await resync(dir, db, sim.baseUrl);
    const line = await follower.waitForLine(/Followed/);
    expect(JSON.parse(line)).toMatchObject({ entity: 'task', entity_id: task.id, op: 'update' });
    follower.child.kill('SIGTERM');
    const ended = await follower.ended;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toBe('');

    // `| head -1`: the follower ends (exit 0, nothing on stderr) at its first write after the
    // pipe closed: the next change committed.
    const cli = [process.execPath, ...CLI_NODE_ARGS].map((word) => `'${word}'`).join(' ');
    const shell = spawn(
      'bash',
      [
        '-c',
        `${cli} changes --db '${db}' --follow 2>'${dir}/stderr' | head -1; echo "exit \${PIPESTATUS[0]}"`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const closed = new Promise<void>((resolve) => shell.on('close', () => resolve()));
    while (!out.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 50));
    sim.service.updateTask(task.id, { name: 'After the pipe closed' });
    await resync(dir, db, sim.baseUrl);
    await closed;
    const [head, exit] = out.trim().split('\n');
    expect(JSON.parse(head!)).toHaveProperty('seq');
    expect(exit).toBe('exit 0');
    expect(readFileSync(join(dir, 'stderr'), 'utf8')).toBe('');
  });
});
