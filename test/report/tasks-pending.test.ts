/**
 * `v_tasks_pending` (issue 21, point 6): the tasks as they will be once the outbox drains, on a
 * SQLite file and on a real PostgreSQL server, each synced from the simulator by `projmirror
 * sync` and queued with plain SQL as a user queues. Pending and sending items apply in queue
 * order with the service's derivation; done, failed and conflict items do not; and after
 * `projmirror push` the mirror's `v_tasks` is what the view showed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SimFixture } from '../../src/sim/index.js';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startPostgres, type PgServer } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { queueEdits, type QueuedEdit } from './mirror.js';

const TOKEN = 'glt_test_tasks_pending_0123456789';

/** One project, three tasks, two people. */
const FIXTURE: SimFixture = {
  projects: [
    {
      id: 'p_1',
      name: 'Harbour Wall',
      members: [
        { id: 'm_ann', name: 'Ann Lee', kind: 'person' },
        { id: 'm_bob', name: 'Bob Stone', kind: 'person' },
      ],
      tasks: [
        task('t_1', 'Pour', 'NotStarted', 0, ['m_ann']),
        task('t_2', 'Cure', 'InProgress', 40, []),
        task('t_3', 'Inspect', 'NotStarted', 0, ['m_bob']),
      ],
      dependencies: [],
    },
  ],
};

function task(id: string, name: string, status: string, progress: number, assigneeIds: string[]) {
  return {
    id,
    name,
    startDate: '2026-03-01',
    endDate: '2026-03-10',
    status,
    progress,
    assigneeIds,
  };
}

/** [op, target, body, state]: what a user queued, and where each item is in its life. */
const QUEUED: readonly QueuedEdit[] = [
  ['task.update', 't_1', '{"status":"InProgress","name":"Pour the slab"}', 'pending'],
  // A later item wins: progress 100 makes the status Done (spec 3), over InProgress.
  ['task.update', 't_1', '{"progress":100}', 'sending'],
  ['task.set_assignees', 't_1', '{"assigneeIds":["m_bob","m_ann"]}', 'pending'],
  // Not applied: sent already, refused for good, held in conflict.
  ['task.update', 't_1', '{"name":"Sent already"}', 'done'],
  ['task.update', 't_1', '{"endDate":"2030-01-01"}', 'failed'],
  ['task.update', 't_1', '{"startDate":"2026-01-01"}', 'conflict'],
  ['task.update', 't_2', '{"endDate":"2026-03-20"}', 'pending'],
];

/** The columns compared, in both engines' spelling of the same values. */
const COLUMNS = `task_id, task_name, start_date, end_date, status, progress, assignee_ids,
  assignee_names, assignees, is_done, duration_days`;
const PG_COLUMNS = `task_id, task_name, start_date::text AS start_date, end_date::text AS end_date,
  status, progress, assignee_ids, assignee_names, assignees, is_done::int AS is_done,
  duration_days::int AS duration_days`;

/** What the view must show for each task. */
const EXPECTED = [
  {
    task_id: 't_1',
    task_name: 'Pour the slab',
    start_date: '2026-03-01',
    end_date: '2026-03-10',
    status: 'Done',
    progress: 100,
    assignee_ids: '["m_ann","m_bob"]',
    assignee_names: '["Ann Lee","Bob Stone"]',
    assignees: 'Ann Lee, Bob Stone',
    is_done: 1,
    duration_days: 10,
    pending_fields: '["task_name","status","progress","assignee_ids"]',
    pending_items: 3,
  },
  {
    task_id: 't_2',
    task_name: 'Cure',
    start_date: '2026-03-01',
    end_date: '2026-03-20',
    status: 'InProgress',
    progress: 40,
    assignee_ids: '[]',
    assignee_names: '[]',
    assignees: null,
    is_done: 0,
    duration_days: 20,
    pending_fields: '["end_date"]',
    pending_items: 1,
  },
  {
    task_id: 't_3',
    task_name: 'Inspect',
    start_date: '2026-03-01',
    end_date: '2026-03-10',
    status: 'NotStarted',
    progress: 0,
    assignee_ids: '["m_bob"]',
    assignee_names: '["Bob Stone"]',
    assignees: 'Bob Stone',
    is_done: 0,
    duration_days: 10,
    pending_fields: '[]',
    pending_items: 0,
  },
];

type Row = Record<string, unknown>;

/** A mirror in one engine: plain SQL on it, and the CLI's `--db` for it. */
interface Engine {
  run(sql: string, params: string[]): Promise<void>;
  rows(view: string, columns: 'pending' | 'plain'): Promise<Row[]>;
  close(): Promise<void>;
}

function sqliteEngine(file: string): Engine {
  const db = new Database(file);
  return {
    run: async (sql, params) => {
      db.prepare(sql).run(...params);
    },
    rows: async (view, columns) => {
      const list = columns === 'pending' ? `${COLUMNS}, pending_fields, pending_items` : COLUMNS;
      return db.prepare(`SELECT ${list} FROM ${view} ORDER BY task_id`).all() as Row[];
    },
    close: async () => {
      db.close();
    },
  };
}

async function postgresEngine(url: string): Promise<Engine> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('SET search_path TO projmirror');
  return {
    run: async (sql, params) => {
      await client.query(sql, params);
    },
    rows: async (view, columns) => {
      const list =
        columns === 'pending'
          ? `${PG_COLUMNS}, pending_fields, pending_items::int AS pending_items`
          : PG_COLUMNS;
      return (await client.query<Row>(`SELECT ${list} FROM ${view} ORDER BY task_id`)).rows;
    },
    close: () => client.end(),
  };
}

/** Syncs a fresh simulator into `db` with the CLI; the simulator and the CLI's remote options. */
async function synced(db: string) {
  const sim = await startTestSimulator({ fixture: FIXTURE, tokens: [TOKEN], limits: false });
  const dir = tempDir();
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
  const remote = ['--db', db, '--base-url', sim.baseUrl, '--token-file', join(dir, 'token')];
  expect((await runCli(['sync', ...remote], { cwd: dir })).code).toBe(0);
  return { sim, dir, remote };
}

/** The scenario, the same on either engine. */
async function showsTheBoardAsItWillBe(
  db: string,
  open: (db: string) => Promise<Engine>,
  marks: 'sqlite' | 'postgres',
): Promise<void> {
  const { sim, dir, remote } = await synced(db);
  const engine = await open(db);
  try {
    await queueEdits(
      QUEUED,
      () => 'p_1',
      (sql, params) => engine.run(sql, params),
      marks,
    );
    const pending = await engine.rows('v_tasks_pending', 'pending');
    expect(pending).toEqual(EXPECTED);
    // The mirror itself is untouched: v_tasks still shows the service's values.
    expect((await engine.rows('v_tasks', 'plain'))[0]).toMatchObject({
      task_name: 'Pour',
      status: 'NotStarted',
    });

    // The queue drains: the mirror, written from the service's answers, is what the view showed.
    const push = await runCli(['push', ...remote], { cwd: dir });
    expect(push.code, push.stderr).toBe(0);
    expect(push.stdout).toMatch(/^push: 4 done, 0 failed, 0 left pending/m);
    expect(sim.service.getTask('t_1')).toMatchObject({ name: 'Pour the slab', status: 'Done' });
    const strip = (rows: Row[]) =>
      rows.map(({ pending_fields: _f, pending_items: _n, ...row }) => row);
    expect(await engine.rows('v_tasks', 'plain')).toEqual(strip(EXPECTED));
    expect(
      (await engine.rows('v_tasks_pending', 'pending')).map((r) => r['pending_items']),
    ).toEqual([0, 0, 0]);
  } finally {
    await engine.close();
  }
}

describe('v_tasks_pending', () => {
  it('shows the tasks with their pending and sending updates applied, on SQLite', async () => {
    await showsTheBoardAsItWillBe(
      join(tempDir(), 'm.sqlite'),
      async (db) => sqliteEngine(db),
      'sqlite',
    );
  }, 60_000);

  describe('on PostgreSQL', () => {
    let server: PgServer;
    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);

    it('shows the same rows', async () => {
      await showsTheBoardAsItWillBe(await server.database(), postgresEngine, 'postgres');
    }, 60_000);
  });
});
