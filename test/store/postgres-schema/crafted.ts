/**
 * Rows no simulator sends, written straight into a SQLite mirror (its triggers note their
 * fields): a project with twenty tasks whose average progress is 1.15 (SQLite rounds the double
 * to 1.1), other and missing statuses and dates, assignees off the roster, names that need JSON
 * escaping and byte order, dependencies on missing tasks, a project without tasks, and `data`
 * fields of every kind of value, with names that clash.
 */
import type { SqliteDb } from '../../../src/store/database.js';
import { day } from '../../report/mirror.js';

const PROJECT = 'p_crafted';
const STATUSES = ['NotStarted', 'InProgress', 'Done', 'Blocked', null] as const;
const WHEN = [
  '2026-11-21T09:30:00+02:00',
  '2026-11-20',
  '2026-11-19 08:00',
  '2026-11-18T23:59:59Z',
];

/** The roster of the crafted project; `m_gone` is assigned but not on it. */
const MEMBERS: Array<[string, string, string]> = [
  ['m_emile', 'Émile Zola', 'person'],
  ['m_lower', 'ann', 'person'],
  ['m_upper', 'Ann', 'person'],
  ['m_quote', 'Zoë "Z" \\ tab\there\u0001', 'person'],
  ['m_bot', 'Sync bot', 'integration'],
];
const ASSIGNEES = [
  [],
  ['m_gone'],
  ['m_lower', 'm_upper'],
  ['m_quote', 'm_emile', 'm_gone'],
  ['m_bot'],
];

/** Writes the crafted rows, as synced at `syncedAt`. */
export function addCraftedRows(db: SqliteDb, syncedAt: string): void {
  db.transaction(() => {
    insertProject(db, PROJECT, 'Crafted "Q" Co', syncedAt, {
      budget: 12.5,
      kickoff: '2026-11-01',
      flagged: true,
      meta: { z: 1, a: [1, 2] },
    });
    insertProject(db, 'p_empty', 'Empty', syncedAt, { budget: 3 });
    const member = db.prepare(
      `INSERT INTO members (project_id, id, name, kind, data, synced_at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    for (const [id, name, kind] of MEMBERS) {
      member.run(PROJECT, id, name, kind, JSON.stringify({ id, name, kind }), syncedAt);
    }
    for (let i = 1; i <= 20; i += 1) insertTask(db, i, syncedAt);
    const dependency = db.prepare(
      `INSERT INTO dependencies (project_id, id, predecessor_id, successor_id, type, data, synced_at)
       VALUES (?, ?, ?, ?, 'FS', ?, ?)`,
    );
    for (const [id, pre, suc] of [
      ['d_c1', 't_c01', 't_c02'],
      ['d_c2', 't_missing', 't_c03'],
      ['d_c3', 't_c04', 't_gone'],
      ['d_c4', 't_c12', 't_c06'],
    ] as const) {
      const data = { id, predecessorId: pre, successorId: suc, type: 'FS', lag: 2 };
      dependency.run(PROJECT, id, pre, suc, JSON.stringify(data), syncedAt);
    }
    db.prepare(
      `INSERT INTO resources (project_id, id, name, data, synced_at) VALUES (?, 'r_c1', 'Crane', ?, ?)`,
    ).run(
      PROJECT,
      JSON.stringify({ id: 'r_c1', name: 'Crane', capacity: 3, night: false }),
      syncedAt,
    );
    const history = db.prepare(
      `INSERT INTO task_history (task_id, project_id, observed_at, field, old_value, new_value)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    history.run('t_c02', PROJECT, syncedAt, 'status', 'NotStarted', 'InProgress');
    history.run('t_c05', PROJECT, syncedAt, 'created', null, 'Task 5');
    history.run('t_c_gone', PROJECT, syncedAt, 'deleted', 'Gone task', null);
  })();
}

function insertProject(db: SqliteDb, id: string, name: string, at: string, extra: object): void {
  const data = { id, name, active: null, readOnlyReason: 'archived', ...extra };
  db.prepare(
    `INSERT INTO projects (id, name, active, read_only_reason, data, synced_at)
     VALUES (?, ?, NULL, 'archived', ?, ?)`,
  ).run(id, name, JSON.stringify(data), at);
  db.prepare(
    `INSERT INTO sync_state (project_id, backfill, last_pass_at) VALUES (?, 'done', ?)`,
  ).run(id, at);
}

function insertTask(db: SqliteDb, i: number, at: string): void {
  const id = `t_c${String(i).padStart(2, '0')}`;
  const name = i === 7 ? 'Wire\nthe "panel" wiring' : `Task ${i} wiring`;
  const status = STATUSES[i % STATUSES.length] ?? null;
  const start = i % 6 === 3 ? null : day(i - 14);
  const end = i % 6 === 3 || i % 6 === 5 ? null : day(i % 4 === 0 ? i - 16 : i - 10);
  const progress = i === 20 ? 4 : 1;
  const assigneeIds = ASSIGNEES[i % ASSIGNEES.length]!;
  const data: Record<string, unknown> = {
    id,
    name,
    startDate: start,
    endDate: end,
    status,
    progress,
    assigneeIds,
    mixed: [5, 'five', true, 2.5][i % 4],
    ratio: i % 2 === 0 ? 1 : 2.5,
    flag: i % 3 === 0,
    when: WHEN[i % WHEN.length],
    tags: ['a', `t${i}`],
    meta: { k: 'v', n: i },
    nothing: null,
    'custom"quote': 1,
  };
  if (i % 5 === 0) data['Name'] = `upper ${i}`;
  if (i === 9) data['task_id'] = 'dup';
  db.prepare(
    `INSERT INTO tasks (id, project_id, name, start_date, end_date, status, progress, data, synced_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, PROJECT, name, start, end, status, progress, JSON.stringify(data), at);
  const assign = db.prepare(`INSERT INTO task_assignees (task_id, member_id) VALUES (?, ?)`);
  for (const member of assigneeIds) assign.run(id, member);
}

const EVERY_KIND = {
  id: 'p_x',
  day: '2026-11-21',
  at: '2026-11-21T09:30:00.000Z',
  atSpace: '2026-11-21 09:30',
  almost: '2026-11-2',
  word: 'text',
  yes: true,
  no: false,
  count: -7,
  big: 0,
  ratio: 1.5,
  whole: 1.0,
  list: [1, 'a'],
  object: { b: 1, a: { c: null } },
  empty: [],
  missing: null,
  badDay: '2026-02-30',
  badTime: '2026-11-21T25:61',
  oddTime: '2026-11-21T09:30 UTC',
  '': 'no name',
  'has"quote': 1,
};
/**
 * A project's `data` with a value of every kind the wide views tell apart, some no type can hold
 * (read as NULL), and keys no column can be named (kept in `data` only); written as JSON text to
 * spell 1.0 and an integer beyond JavaScript's.
 */
export const EVERY_KIND_JSON = JSON.stringify(EVERY_KIND)
  .replace('"whole":1', '"whole":1.0')
  .replace('"big":0', '"big":12345678901234567890');
