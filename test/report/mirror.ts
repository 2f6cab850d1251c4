/**
 * A mirror for the reporting tests, built the way the daemon builds one: a simulator loaded with
 * a fixture whose dates are relative to the real today (the views compare with `date('now')`),
 * synced by the wired engine on a fake clock over four days: a baseline three days ago, then a
 * day of changes each day up to today.
 */
import pino from 'pino';
import { openEngine } from '../../src/daemon/wiring.js';
import type { SimFixture } from '../../src/sim/index.js';
import type { SqliteDb } from '../../src/store/database.js';
import { FakeClock } from '../fixtures/clock.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { singleToken } from '../../src/tokens/index.js';

const MS_PER_DAY = 86_400_000;
const TOKEN = 'glt_test_report_0123456789abcdef';

/**
 * Today's UTC midnight, in ms, from the process's clock: the clock the views' `CURRENT_TIMESTAMP`
 * reads too. `test/midnight.sh` runs these tests with both frozen at 23:59:30 UTC.
 */
export function todayMs(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

/** The UTC calendar date `offset` days from today, as YYYY-MM-DD. */
export function day(offset: number): string {
  return new Date(todayMs() + offset * MS_PER_DAY).toISOString().slice(0, 10);
}

/** A zone whose calendar day differs from UTC's at `now` (UTC+14 or UTC-11). */
export function zoneOffTheUtcDay(now = Date.now()): string {
  return new Date(now).getUTCHours() >= 10 ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
}

/** Two projects: Alpha with five tasks and two people, Bravo with three tasks and one person. */
export function reportFixture(): SimFixture {
  return {
    projects: [
      {
        id: 'p_alpha',
        name: 'Alpha Tower',
        members: [
          { id: 'm_ann', name: 'Ann Lee', kind: 'person' },
          { id: 'm_bob', name: 'Bob Stone', kind: 'person' },
        ],
        tasks: [
          task('t_a1', 'Dig foundations', -20, -10, 'Done', 100, ['m_ann']),
          task('t_a2', 'Pour concrete', -8, -3, 'InProgress', 50, ['m_ann', 'm_bob']),
          task('t_a3', 'Frame walls, floor 1', -2, 5, 'NotStarted', 0, ['m_bob']),
          task('t_a4', 'Inspect "rebar"', -5, -1, 'NotStarted', 0, []),
          task('t_a5', 'Order windows\nand doors', -6, -2, 'NotStarted', 0, ['m_ann']),
        ],
        dependencies: [
          { id: 'd_a1', predecessorId: 't_a2', successorId: 't_a3', type: 'FS' },
          { id: 'd_a2', predecessorId: 't_a5', successorId: 't_a3', type: 'FS' },
        ],
      },
      {
        id: 'p_bravo',
        name: 'Bravo Bridge',
        members: [{ id: 'm_cy', name: 'Cy Park', kind: 'person' }],
        tasks: [
          task('t_b1', 'Survey', -30, -25, 'Done', 100, ['m_cy']),
          task('t_b2', 'Permits', -10, -1, 'NotStarted', 0, ['m_cy']),
          task('t_b3', 'Pour deck', -1, 0, 'NotStarted', 0, ['m_cy']),
        ],
        dependencies: [{ id: 'd_b1', predecessorId: 't_b2', successorId: 't_b3', type: 'FS' }],
      },
    ],
  };
}

function task(
  id: string,
  name: string,
  start: number,
  end: number,
  status: string,
  progress: number,
  assigneeIds: string[],
) {
  return { id, name, startDate: day(start), endDate: day(end), status, progress, assigneeIds };
}

/** The synced mirror, its file, and the id the service gave the task created on day -2. */
export interface ReportMirror {
  db: SqliteDb;
  file: string;
  paintTaskId: string;
}

/**
 * Syncs the fixture at noon three days ago (the baseline), then each day: day -2 starts
 * "Frame walls" and creates "Paint"; day -1 finishes "Pour concrete", deletes "Inspect" and
 * starts "Permits"; today (at midnight) finishes "Paint".
 */
export async function buildReportMirror(): Promise<ReportMirror> {
  const sim = await startTestSimulator({
    fixture: reportFixture(),
    tokens: [TOKEN],
    limits: false,
  });
  const { db, file } = tempDatabase();
  const clock = new FakeClock(todayMs() - 3 * MS_PER_DAY + MS_PER_DAY / 2);
  const engine = await openEngine(
    { baseUrl: new URL(sim.baseUrl), tokens: singleToken(TOKEN) },
    { db, logger: pino({ level: 'silent' }), clock },
  );
  const sync = async () => {
    const report = await engine.mirror.syncAll();
    if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report)}`);
  };
  try {
    await sync();
    await clock.advance(MS_PER_DAY);
    sim.service.updateTask('t_a3', { status: 'InProgress', progress: 40 });
    const paint = sim.service.createTask('p_alpha', {
      name: 'Paint',
      startDate: day(-2),
      endDate: day(1),
      status: 'NotStarted',
      progress: 0,
      assigneeIds: ['m_bob'],
    });
    await sync();
    await clock.advance(MS_PER_DAY);
    sim.service.updateTask('t_a2', { status: 'Done', progress: 100 });
    sim.service.deleteTask('t_a4');
    sim.service.updateTask('t_b2', { status: 'InProgress', progress: 20 });
    await sync();
    await clock.advance(MS_PER_DAY / 2);
    sim.service.updateTask(paint.id, { status: 'Done', progress: 100 });
    await sync();
    return { db, file, paintTaskId: paint.id };
  } finally {
    await engine.close();
  }
}

/** An outbox item as a test queues it: op, target task, body (JSON text) and state. */
export type QueuedEdit = readonly [op: string, target: string, body: string, state: string];

/**
 * Outbox items on the report mirror's tasks, queued as a plain SQL INSERT queues them, in every
 * state and with every kind of body `v_tasks_pending` reads: derived status and progress, a later
 * item winning, values the push would refuse, bodies that are not JSON, and items it must not
 * apply (done, failed, conflict, discarded).
 */
export const PENDING_EDITS: readonly QueuedEdit[] = [
  ['task.update', 't_a3', '{"status":"Done"}', 'pending'],
  ['task.update', 't_a3', '{"progress":60}', 'sending'],
  ['task.update', 't_a5', '{"status":"InProgress"}', 'pending'],
  [
    'task.update',
    't_a5',
    '{"name":"Order windows","endDate":"2099-12-31","startDate":"2026-02-30"}',
    'pending',
  ],
  ['task.update', 't_a2', '{"name":"Held back"}', 'conflict'],
  ['task.update', 't_a2', '{"status":"Blocked"}', 'pending'],
  ['task.update', 't_a1', '{"name":"Sent already"}', 'done'],
  ['task.update', 't_a1', '{"progress":5}', 'failed'],
  ['task.update', 't_a1', '{"progress":7}', 'discarded'],
  ['task.set_assignees', 't_b2', '{"assigneeIds":[]}', 'pending'],
  ['task.update', 't_b3', '{"progress":"lots","name":"","endDate":"0000-01-01"}', 'pending'],
  ['task.update', 't_b3', 'not json', 'pending'],
  ['task.update', 't_b1', '{"assigneeIds":["m_cy","m_nobody"],"progress":101}', 'pending'],
];

/**
 * Queues `edits` with plain SQL through `insert(sql, params)`, whose placeholders are SQLite's
 * `?` or PostgreSQL's `$n`; `projectOf` names each target's project.
 */
export async function queueEdits(
  edits: readonly QueuedEdit[],
  projectOf: (target: string) => string,
  insert: (sql: string, params: string[]) => unknown,
  marks: 'sqlite' | 'postgres',
): Promise<void> {
  const values = marks === 'sqlite' ? '(?, ?, ?, ?, ?)' : '($1, $2, $3, $4, $5)';
  for (const [op, target, body, state] of edits) {
    await insert(`INSERT INTO outbox (op, project_id, target_id, body, state) VALUES ${values}`, [
      op,
      projectOf(target),
      target,
      body,
      state,
    ]);
  }
}

/** Queues `PENDING_EDITS` on the report mirror (SQLite) through `insert`. */
export async function queuePendingEdits(
  insert: (sql: string, params: string[]) => unknown,
): Promise<void> {
  await queueEdits(
    PENDING_EDITS,
    (target) => (target.startsWith('t_b') ? 'p_bravo' : 'p_alpha'),
    insert,
    'sqlite',
  );
}
