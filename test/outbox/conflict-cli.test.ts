/**
 * The conflict check as a user meets it, through the real CLI in a child process against the
 * simulator over HTTP: `push --dry-run` predicts what the following `push` does item for item,
 * `push` holds a conflict (exit 1, one line), `status`, the HTML report and `outbox list` show it,
 * and `outbox resolve` settles it either way, as do docs/outbox.md's plain-SQL resolutions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { syncWithCli } from '../fixtures/synced.js';
import { docSection } from '../docs/pages.js';

const TOKEN = 'glt_test_conflict_cli_0123456789abcdef';

async function mirrorOfSimulator() {
  const sim = await startTestSimulator({
    projects: 1,
    tasks: 3,
    dependenciesPerProject: 0,
    tokens: [TOKEN],
  });
  const { dir, db, sync } = await syncWithCli(sim, TOKEN, 'mirror.sqlite');
  expect(sync.code).toBe(0);
  const common = ['--base-url', sim.baseUrl, '--token-file', join(dir, 'token'), '--db', db];
  const cli = (...args: string[]) => runCli([...args, ...common]);
  const projectId = sim.service.listProjects()[0]!.id;
  const tasks = sim.service.listTasks(projectId).map((task) => task.id);
  const enqueue = async (op: string, target: string, body: unknown) => {
    const run = await cli(
      'enqueue',
      op,
      '--project',
      projectId,
      '--target',
      target,
      '--body',
      JSON.stringify(body),
    );
    expect(run.code, run.stderr).toBe(0);
    return Number(/\d+/.exec(run.stdout)![0]);
  };
  return { sim, dir, db, cli, projectId, tasks, enqueue };
}

interface Listed {
  id: number;
  state: string;
  lastError: string | null;
}

/**
 * Two items held in conflict by `push` (exit 1): `local` (a status a colleague changed too),
 * which its test keeps, and `remote` (a name), which it discards; `settled` pushes again and
 * checks that outcome on the service and in the outbox.
 */
async function twoConflicts() {
  const mirror = await mirrorOfSimulator();
  const { sim, cli, tasks, enqueue } = mirror;
  const [a, b] = tasks as [string, string];
  const local = await enqueue('task.update', a, { status: 'InProgress' });
  const remote = await enqueue('task.update', b, { name: 'Mine' });
  sim.service.updateTask(a, { status: 'Done' });
  sim.service.updateTask(b, { name: 'Theirs' });
  expect((await cli('push')).code).toBe(1);
  const settled = async () => {
    const push = await cli('push');
    expect(push.code, push.stderr).toBe(0);
    const items = JSON.parse((await cli('outbox', 'list', '--json')).stdout) as Listed[];
    expect(items.map((item) => [item.id, item.state])).toEqual([
      [local, 'done'],
      [remote, 'discarded'],
    ]);
    expect(sim.service.getTask(a)!.status).toBe('InProgress');
    expect(sim.service.getTask(b)!.name).toBe('Theirs');
  };
  return { ...mirror, local, remote, settled };
}

describe('conflicts through the CLI', () => {
  it('push --dry-run predicts the push item for item and spends nothing', async () => {
    const { sim, db, cli, projectId, tasks, enqueue } = await mirrorOfSimulator();
    const [a, b, c] = tasks as [string, string, string];
    const held = await enqueue('task.update', a, { status: 'InProgress' });
    const behind = await enqueue('task.update', a, { name: 'Behind' });
    const other = await enqueue('task.update', b, { progress: 50 });
    const sql = new Database(db);
    const invalid = Number(
      sql
        .prepare(`INSERT INTO outbox (op, project_id, target_id) VALUES ('task.explode', ?, ?)`)
        .run(projectId, c).lastInsertRowid,
    );
    sql.close();
    sim.service.updateTask(a, { status: 'Done' });
    // The colleague's change reaches the mirror (a sync, or the daemon's realtime).
    expect((await cli('sync')).code).toBe(0);
    const requestsBefore = sim.requestLog.total;

    const dry = await cli('push', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(sim.requestLog.total).toBe(requestsBefore);
    const plan = JSON.parse(dry.stdout) as {
      items: Array<{ id: number; action: string; detail: string; requests: number }>;
      requests: number;
      quotaRemaining: number | null;
    };
    expect(plan.items.map((step) => [step.id, step.action])).toEqual([
      [held, 'conflict'],
      [behind, 'wait'],
      [other, 'send'],
      [invalid, 'fail'],
    ]);
    expect(plan.items[3]!.detail).toMatch(/^invalid_op: unknown op "task.explode"/);
    expect(plan.items[0]!.detail).toMatch(/^conflict: status was NotStarted when queued, is Done/);
    expect(plan.requests).toBe(1 + 0 + 2 + 0);
    expect(typeof plan.quotaRemaining).toBe('number');
    const text = await cli('push', '--dry-run');
    expect(text.stdout).toMatch(
      new RegExp(`^${behind}  task.update .* wait: behind item ${held} in conflict`, 'm'),
    );
    expect(text.stdout).toMatch(/^dry run: 4 items, 3 requests; \d+ left today; nothing sent$/m);

    const push = await cli('push', '--json');
    expect(push.code).toBe(1);
    // A plain line for each item that needs a person, then one says what is left to do.
    const said = push.stderr.trim().split('\n');
    expect(said, push.stderr).toEqual([
      expect.stringMatching(
        new RegExp(
          `^projmirror: warning: project p_1: item ${held} task.update: outbox item held: .*status was NotStarted when queued, is Done on the service`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^projmirror: warning: project p_1: item ${invalid} task.explode: outbox item failed before sending: invalid_op: unknown op "task.explode"`,
        ),
      ),
      expect.stringMatching(
        /^projmirror: push: 1 item failed .*; 1 item in conflict .*; 1 item left pending$/,
      ),
    ]);
    expect(push.stderr).not.toContain(TOKEN);
    const list = await cli('outbox', 'list', '--json');
    const states = new Map(
      (JSON.parse(list.stdout) as Listed[]).map((item) => [item.id, item.state]),
    );
    const expected: Record<string, string> = {
      send: 'done',
      conflict: 'conflict',
      wait: 'pending',
      fail: 'failed',
    };
    expect(plan.items.map((step) => states.get(step.id))).toEqual(
      plan.items.map((step) => expected[step.action]),
    );
    expect(sim.requestLog.total - requestsBefore).toBe(plan.requests);
    expect(sim.service.getTask(a)!.status).toBe('Done');
  });

  it('status, the HTML report and outbox list show a conflict; resolve settles it both ways', async () => {
    const { dir, cli, local, remote, settled } = await twoConflicts();

    const status = JSON.parse((await cli('status', '--json')).stdout) as {
      outbox: { counts: Record<string, number> };
    };
    expect(status.outbox.counts).toMatchObject({ conflict: 2, pending: 0 });
    expect((await cli('status')).stdout).toMatch(/outbox: .*2 conflict/);
    // A push that finds only the conflicts of an earlier run has nothing to hold: exit 0.
    expect((await cli('push')).code).toBe(0);
    const html = join(dir, 'report.html');
    expect((await cli('report', '--html', html)).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('Outbox items in conflict (2)');
    expect(page).toContain('conflict: name was');

    const usage = await cli('outbox', 'resolve', String(local));
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
    expect(usage.stderr).toMatch(/exactly one of --keep-local and --keep-remote/);
    const both = await cli('outbox', 'resolve', String(local), '--keep-local', '--keep-remote');
    expect(both.code).toBe(2);
    expect((await cli('outbox', 'resolve', String(local), '--keep-local')).code).toBe(0);
    expect((await cli('outbox', 'resolve', String(remote), '--keep-remote')).code).toBe(0);
    const again = await cli('outbox', 'resolve', String(remote), '--keep-local');
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is discarded; only items in conflict resolve/);

    await settled();
  });

  it('the documented plain-SQL keep-local and keep-remote settle a conflict as resolve does', async () => {
    const { db, local, remote, settled } = await twoConflicts();
    // The statements as docs/outbox.md's Conflicts section gives them, for item 7.
    const section = docSection('Conflicts');
    const statement = (state: string) => {
      const found = new RegExp(
        `\`(UPDATE outbox SET state = '${state}'[^\`]*WHERE id = 7[^\`]*)\``,
      ).exec(section.replace(/\s*\n\s*/g, ' '));
      expect(found, `the documented ${state} statement`).not.toBeNull();
      return found![1]!;
    };
    const sql = new Database(db);
    expect(sql.prepare(statement('pending').replace('id = 7', `id = ${local}`)).run().changes).toBe(
      1,
    );
    expect(
      sql.prepare(statement('discarded').replace('id = 7', `id = ${remote}`)).run().changes,
    ).toBe(1);
    sql.close();

    await settled();
  });

  it('--on-conflict overwrite sends the item over the colleague’s change; a bad value is a usage error', async () => {
    const { sim, cli, tasks, enqueue } = await mirrorOfSimulator();
    const a = tasks[0]!;
    await enqueue('task.update', a, { status: 'InProgress' });
    sim.service.updateTask(a, { status: 'Done' });
    const bad = await cli('push', '--on-conflict', 'maybe');
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const push = await cli('push', '--on-conflict', 'overwrite');
    expect(push.code, push.stderr).toBe(0);
    expect(sim.service.getTask(a)!.status).toBe('InProgress');
  });
});
