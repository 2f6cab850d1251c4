/**
 * The five questions analysts ask, each answered by one short query of docs/schema.md against the
 * demo mirror (`projmirror demo`), and checked against the same answer computed here from the
 * mirrored tables.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SqliteDb } from '../../src/store/database.js';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';

const DOC = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');
const MS_PER_DAY = 86_400_000;

/** The documented query whose first line is `-- <title>`. */
function documentedQuery(title: string): string {
  const found = [...DOC.matchAll(/```sql\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((sql) => sql.startsWith(`-- ${title}\n`));
  if (found === undefined) throw new Error(`docs/schema.md has no query "${title}"`);
  expect(found.trim().split('\n').length, title).toBeLessThanOrEqual(5);
  return found;
}

interface TaskRow {
  id: string;
  project_id: string;
  project_name: string;
  name: string;
  start_date: string;
  end_date: string;
  status: string;
}

const dayMs = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** ISO 8601 week label of a day, `2026-W47`. */
function isoWeek(ms: number): string {
  const thursday = new Date(ms + (3 - ((new Date(ms).getUTCDay() + 6) % 7)) * MS_PER_DAY);
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor((thursday.getTime() - yearStart) / MS_PER_DAY / 7) + 1;
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

describe('the five analyst questions, one query each, against the demo mirror', () => {
  let db: SqliteDb;
  let tasks: TaskRow[];
  let today: string;
  let assignees: Map<string, string[]>;
  let memberNames: Map<string, string>;

  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'projmirror-analyst-'));
    const file = join(dir, 'demo.sqlite');
    // Once for the five questions (the test fixtures' temp dirs and runs belong to one test).
    const run = spawnSync(process.execPath, [...CLI_NODE_ARGS, 'demo', '--db', file], {
      cwd: dir,
      timeout: 60_000,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    db = new Database(file, { readonly: true });
    tasks = db
      .prepare(
        `SELECT t.id, t.project_id, p.name AS project_name, t.name, t.start_date, t.end_date,
           t.status FROM tasks t JOIN projects p ON p.id = t.project_id`,
      )
      .all() as TaskRow[];
    today = db.prepare(`SELECT day FROM v_today`).pluck().get() as string;
    assignees = new Map();
    for (const row of db.prepare('SELECT task_id, member_id FROM task_assignees').all() as Array<{
      task_id: string;
      member_id: string;
    }>) {
      assignees.set(row.task_id, [...(assignees.get(row.task_id) ?? []), row.member_id]);
    }
    memberNames = new Map(
      (
        db.prepare('SELECT project_id, id, name FROM members').all() as Array<
          Record<string, string>
        >
      ).map((m) => [`${m['project_id']}/${m['id']}`, m['name']!]),
    );
    return () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }, 90_000);

  const open = (task: TaskRow) => task.status !== 'Done';
  const taskDays = (task: TaskRow) =>
    Math.max((dayMs(task.end_date) - dayMs(task.start_date)) / MS_PER_DAY + 1, 0);

  it('burndown per project', () => {
    const rows = db.prepare(documentedQuery('burndown per project')).all() as Array<{
      project_name: string;
      day: string;
      open_tasks: number;
      open_task_days: number;
    }>;
    for (const project of new Set(tasks.map((t) => t.project_name))) {
      const series = rows.filter((row) => row.project_name === project);
      expect(series.length, project).toBeGreaterThan(0);
      series.forEach((row, i) => {
        if (i > 0) expect(dayMs(row.day) - dayMs(series[i - 1]!.day)).toBe(MS_PER_DAY);
      });
      const mine = tasks.filter((t) => t.project_name === project && open(t));
      expect(series.at(-1)).toEqual({
        project_name: project,
        day: today,
        open_tasks: mine.length,
        open_task_days: mine.reduce((sum, t) => sum + taskDays(t), 0),
      });
    }
  });

  it('overdue per member, with the task list', () => {
    const rows = db.prepare(documentedQuery('overdue per member')).all() as Array<{
      project_name: string;
      member_name: string | null;
      overdue: number;
      tasks: string;
    }>;
    const expected = new Map<string, { member_name: string | null; names: string[] }>();
    for (const task of tasks.filter((t) => open(t) && t.end_date < today)) {
      for (const member of assignees.get(task.id) ?? [null]) {
        const key = `${task.project_name}/${member}`;
        const entry = expected.get(key) ?? {
          member_name:
            member === null ? null : (memberNames.get(`${task.project_id}/${member}`) ?? null),
          names: [],
        };
        entry.names.push(task.name);
        expected.set(key, entry);
      }
    }
    expect(rows.length).toBe(expected.size);
    expect(rows.length).toBeGreaterThan(3);
    const got = rows.map((row) => ({
      project_name: row.project_name,
      member_name: row.member_name,
      overdue: row.overdue,
      names: (JSON.parse(row.tasks) as string[]).sort(),
    }));
    const want = [...expected.entries()].map(([key, entry]) => ({
      project_name: key.slice(0, key.lastIndexOf('/')),
      member_name: entry.member_name,
      overdue: entry.names.length,
      names: entry.names.sort(),
    }));
    const order = (a: { project_name: string; overdue: number; names: string[] }, b: typeof a) =>
      a.project_name.localeCompare(b.project_name) ||
      b.overdue - a.overdue ||
      a.names.join().localeCompare(b.names.join());
    expect(got.sort(order)).toEqual(want.sort(order));
  });

  it('workload per member per week', () => {
    const rows = db.prepare(documentedQuery('workload per member per week')).all() as Array<{
      project_name: string;
      member_name: string | null;
      iso_week: string;
      open_tasks: number;
      task_days: number;
    }>;
    const expected = new Map<string, { open_tasks: number; task_days: number }>();
    for (const task of tasks.filter((t) => open(t) && t.start_date <= t.end_date)) {
      const first = dayMs(task.start_date);
      const last = dayMs(task.end_date);
      const monday = first - ((new Date(first).getUTCDay() + 6) % 7) * MS_PER_DAY;
      for (const member of assignees.get(task.id) ?? []) {
        for (let week = monday; week <= last; week += 7 * MS_PER_DAY) {
          const name = memberNames.get(`${task.project_id}/${member}`) ?? null;
          const key = `${task.project_name}|${name}|${isoWeek(week)}`;
          const entry = expected.get(key) ?? { open_tasks: 0, task_days: 0 };
          entry.open_tasks += 1;
          entry.task_days +=
            (Math.min(last, week + 6 * MS_PER_DAY) - Math.max(first, week)) / MS_PER_DAY + 1;
          expected.set(key, entry);
        }
      }
    }
    const got = Object.fromEntries(
      rows.map((row) => [
        `${row.project_name}|${row.member_name}|${row.iso_week}`,
        { open_tasks: row.open_tasks, task_days: row.task_days },
      ]),
    );
    expect(rows.length).toBeGreaterThan(50);
    expect(got).toEqual(Object.fromEntries(expected));
    expect(isoWeek(dayMs('2027-01-01'))).toBe('2026-W53');
  });

  it('blocking dependencies', () => {
    const rows = db.prepare(documentedQuery('blocking dependencies')).all() as Array<{
      predecessor_name: string;
      successor_name: string;
    }>;
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const dependencies = db
      .prepare('SELECT predecessor_id, successor_id FROM dependencies')
      .all() as Array<{ predecessor_id: string; successor_id: string }>;
    const expected = dependencies.filter((d) => {
      const pre = byId.get(d.predecessor_id);
      const suc = byId.get(d.successor_id);
      return pre && suc && open(pre) && open(suc) && suc.start_date <= today;
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(rows.map((r) => `${r.predecessor_name} -> ${r.successor_name}`).sort()).toEqual(
      expected
        .map((d) => `${byId.get(d.predecessor_id)!.name} -> ${byId.get(d.successor_id)!.name}`)
        .sort(),
    );
  });

  it('tasks matching a word', () => {
    const rows = db.prepare(documentedQuery('tasks matching a word')).all() as Array<{
      id: string;
    }>;
    const expected = tasks.filter((t) => /\bwiring\b/i.test(t.name)).map((t) => t.id);
    expect(expected.length).toBeGreaterThan(10);
    expect(rows.map((r) => r.id).sort()).toEqual(expected.sort());
  });
});
