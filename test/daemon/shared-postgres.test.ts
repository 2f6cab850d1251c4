/**
 * Three `projmirror run` processes, each with its own token, over one PostgreSQL mirror on a
 * real server: every project is held by exactly one daemon; `kill -9` of the one holding the
 * most hands its projects to the others within the lease time; the mirror converges to the
 * service; and outbox items queued before the kill each take effect exactly once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/sim/index.js';
import { tempDir } from '../fixtures/db.js';
import { runCli, sharedRunArgs, startCli, type RunningCli } from '../fixtures/cli.js';
import { startPostgres } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';

/** Short leases, so that a takeover happens within the test's time. */
const LEASE_MS = 3_000;
const PROJECTS = ['p_1', 'p_2', 'p_3', 'p_4'];

let sim: Simulator;
let url: string;
let client: pg.Client;

beforeAll(async () => {
  const server = await startPostgres();
  url = await server.database();
  client = new pg.Client({ connectionString: url });
  await client.connect();
}, 60_000);

afterAll(async () => {
  await client.end();
});

/** Polls `check` every 100 ms until it returns a value, for up to `timeoutMs`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check().catch((error: { code?: string }) => {
      // The first daemon has not created the schema yet.
      if (error.code === '42P01') return undefined;
      throw error;
    });
    if (found !== undefined) return found;
    if (Date.now() > deadline) {
      const outbox = await client.query(
        'SELECT id, project_id, state, last_error FROM projmirror.outbox',
      );
      const leases = await client.query('SELECT * FROM projmirror.project_leases');
      throw new Error(
        `timed out waiting for ${what}: ${JSON.stringify([outbox.rows, leases.rows])}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Each project's live lease holder (pid), from the database itself. */
async function holders(): Promise<Map<string, number>> {
  const { rows } = await client.query<{ project_id: string; pid: number }>(
    `SELECT l.project_id, d.pid FROM projmirror.project_leases l
     JOIN projmirror.daemons d ON d.id = l.daemon_id WHERE l.expires_at > now()`,
  );
  return new Map(rows.map((row) => [row.project_id, row.pid]));
}

/**
 * Waits until every project is held by exactly one of `pids`, shared out (each holds one or
 * two of the four: the first daemon up takes all, then gives back to those holding fewer).
 */
async function sharedOut(pids: ReadonlySet<number>): Promise<Map<string, number>> {
  return await until('every project leased, shared out', async () => {
    const leases = await holders();
    const counts = new Map<number, number>();
    for (const pid of leases.values()) counts.set(pid, (counts.get(pid) ?? 0) + 1);
    const shared = counts.size === pids.size && Math.max(...counts.values()) <= 2;
    return shared && PROJECTS.every((p) => pids.has(leases.get(p) ?? -1)) ? leases : undefined;
  });
}

/** The mirror's task names of a project, sorted. */
async function mirroredNames(projectId: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    'SELECT name FROM projmirror.tasks WHERE project_id = $1 ORDER BY id',
    [projectId],
  );
  return rows.map((row) => row.name).sort();
}

function serviceNames(projectId: string): string[] {
  return sim.service
    .listTasks(projectId)
    .map((task) => String(task.name))
    .sort();
}

async function converged(): Promise<boolean> {
  for (const projectId of PROJECTS) {
    const mirrored = await mirroredNames(projectId);
    if (JSON.stringify(mirrored) !== JSON.stringify(serviceNames(projectId))) return false;
  }
  return true;
}

function startDaemon(dir: string, label: string, token: string): RunningCli {
  const file = join(dir, label);
  writeFileSync(file, token, { mode: 0o600 });
  return startCli(sharedRunArgs(url, sim, file, LEASE_MS), { cwd: dir });
}

describe('three daemons over one PostgreSQL mirror', () => {
  it('hold each project once, take over a killed one within the lease time, and push exactly once', async () => {
    sim = await startTestSimulator({ projects: 4, tasks: 40, tokens: ['glt_test_shared_c'] });
    const dir = tempDir();
    // Every project is seen by two tokens at least, so that any one daemon can be lost.
    const tokens = {
      a: sim.service.createToken({
        projects: ['p_1', 'p_2', 'p_3'],
        label: 'A',
        value: 'glt_test_shared_a',
      }),
      b: sim.service.createToken({
        projects: ['p_2', 'p_3', 'p_4'],
        label: 'B',
        value: 'glt_test_shared_b',
      }),
      c: 'glt_test_shared_c',
    };
    const daemons = Object.entries(tokens).map(([label, token]) => startDaemon(dir, label, token));
    const pids = new Set(daemons.map((daemon) => daemon.child.pid!));

    // Every project held by exactly one of the three, shared out, and the mirror equal to the
    // service.
    const held = await sharedOut(pids);
    await until('the first sync', async () => ((await converged()) ? true : undefined));
    await until('all three registered', async () => {
      const { rows } = await client.query<{ pid: number }>('SELECT pid FROM projmirror.daemons');
      const registered = rows.map((row) => row.pid).sort();
      return JSON.stringify(registered) === JSON.stringify([...pids].sort()) ? true : undefined;
    });

    // status shows every daemon with the projects it holds; a sync run meanwhile leaves them be.
    const status = await runCli(['status', '--db', url, '--json']);
    const shown = JSON.parse(status.stdout) as {
      daemons: Array<{ pid: number; tokens: string[]; projects: string[] }>;
      projects: Array<{ id: string; heldBy: string }>;
    };
    expect(shown.daemons.map((d) => d.pid).sort()).toEqual([...pids].sort());
    expect(shown.daemons.flatMap((d) => d.projects).sort()).toEqual(PROJECTS);
    for (const project of shown.projects) {
      expect(project.heldBy).toMatch(new RegExp(`:${held.get(project.id)}$`));
    }
    expect((await runCli(['status', '--db', url])).stdout).toMatch(/^daemons \(3\):$/m);
    const sync = await runCli(
      ['sync', '--db', url, '--base-url', sim.baseUrl, '--token-file', join(dir, 'c')],
      { cwd: dir },
    );
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain('4 projects held by other daemons, left to them');

    // The daemon holding the most projects has edits queued, then dies mid-push. (The sync
    // registered too, and may have been handed a project to share them out: wait until they
    // are shared among the three again.)
    const settled = await sharedOut(pids);
    const counts = new Map<number, number>();
    for (const pid of settled.values()) counts.set(pid, (counts.get(pid) ?? 0) + 1);
    const victimPid = [...counts.entries()].sort((x, y) => y[1] - x[1])[0]![0];
    const victimProjects = PROJECTS.filter((p) => settled.get(p) === victimPid);
    // Its first creates reach the service and commit only after it is dead: the survivor that
    // takes over sends them again, with their keys.
    let createArrived = false;
    sim.faults.delay({
      route: 'createTask',
      ms: 1_000,
      count: 2,
      when: () => (createArrived = true),
    });
    const names: string[] = [];
    for (const projectId of victimProjects) {
      for (let n = 1; n <= 3; n++) {
        const name = `Queued ${projectId} ${n}`;
        names.push(name);
        await client.query(
          `INSERT INTO projmirror.outbox (op, project_id, body) VALUES ('task.create', $1, $2)`,
          [
            projectId,
            JSON.stringify({
              name,
              startDate: '2026-12-01',
              endDate: '2026-12-02',
              status: 'NotStarted',
              progress: 0,
            }),
          ],
        );
      }
    }
    // Killed once a create has reached the service, which commits it only after the kill.
    await until('a create in flight', () => Promise.resolve(createArrived ? true : undefined));
    const victim = daemons.find((daemon) => daemon.child.pid === victimPid)!;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await victim.ended;

    // Its projects move to the survivors within the lease time (plus one heartbeat).
    const survivors = new Set([...pids].filter((pid) => pid !== victimPid));
    await until(
      'the takeover',
      async () => {
        const leases = await holders();
        return PROJECTS.every((p) => survivors.has(leases.get(p) ?? -1)) ? true : undefined;
      },
      LEASE_MS * 4,
    );
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 2_000);

    // Every queued edit done, each exactly once on the service; the mirror converges.
    await until('the outbox pushed', async () => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM projmirror.outbox WHERE state <> 'done'`,
      );
      return rows[0]!.n === '0' ? true : undefined;
    });
    for (const name of names) {
      const projectId = name.split(' ')[1]!;
      expect(serviceNames(projectId).filter((n) => n === name)).toHaveLength(1);
    }
    // Some create was sent twice (by the victim, then its successor) and took effect once.
    const creates = sim.requestLog.filter({ where: (entry) => entry.route === 'createTask' });
    expect(creates.length).toBeGreaterThan(names.length);
    await until('convergence after the kill', async () => ((await converged()) ? true : undefined));
    const { rows: after } = await client.query<{ pid: number }>(
      `SELECT pid FROM projmirror.daemons WHERE heartbeat_at > now() - make_interval(secs => $1)`,
      [LEASE_MS / 1000],
    );
    expect(after.map((row) => row.pid).sort()).toEqual([...survivors].sort());

    // A clean stop gives the leases back at once.
    for (const daemon of daemons.filter((d) => d.child.pid !== victimPid))
      daemon.child.kill('SIGTERM');
    await Promise.all(daemons.map((daemon) => daemon.ended));
    expect((await holders()).size).toBe(0);
  }, 120_000);
});
