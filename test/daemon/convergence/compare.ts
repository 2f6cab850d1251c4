/**
 * The mirror against the service, table by table: projects, tasks, task_assignees, members,
 * resources and dependencies. A row is its key, its typed columns and its `data` (parsed, keys
 * sorted), so a wrong typed column, a wrong or partial `data`, a missing row and an extra row
 * all show. The mirror is read through a connection of our own, as a reporting tool reads it.
 */
import { dialectOf } from '../../../src/store/db.js';
import { DEFERRED_INDEXES, DEFERRED_TRIGGERS } from '../../../src/store/deferred-objects.js';
import { connectionOf, type MirrorHandle } from '../../../src/store/handle.js';
import type { SimService } from '../../../src/sim/index.js';

/** Rows of one table by key, each as comparable text. */
type Table = Map<string, string>;

/** The mirrored tables, as the property compares them. */
export const MIRRORED_TABLES = [
  'projects',
  'tasks',
  'task_assignees',
  'members',
  'resources',
  'dependencies',
] as const;

type TableName = (typeof MIRRORED_TABLES)[number];

/** At most this many differing rows are listed per table. */
const SHOWN_PER_TABLE = 4;

/**
 * What differs between the mirror and the service; empty when the mirror equals the service.
 * `mirror` is a connection of the store's, or a SQLite file opened with better-sqlite3.
 */
export async function mirrorDifferences(
  mirror: MirrorHandle,
  service: SimService,
): Promise<string[]> {
  const held = await mirrorTables(mirror);
  const truth = serviceTables(service);
  return MIRRORED_TABLES.flatMap((table) => tableDifferences(table, held[table], truth[table]));
}

/**
 * What is wrong with the objects a SQLite mirror derives from its rows, once every project's
 * backfill has completed: the indexes and the full-text insert trigger a cold sync defers must be
 * back, and the full-text index must hold exactly the tasks (FTS5's integrity check with rank 1
 * compares an external-content index with its table). A kill or an outage in the middle of a
 * backfill that deferred them, or a write from another path meanwhile, shows here.
 */
export async function derivedProblems(mirror: MirrorHandle): Promise<string[]> {
  const db = connectionOf(mirror);
  if (dialectOf(db) !== 'sqlite') return [];
  const backfilling = await db
    .prepare(`SELECT count(*) FROM sync_state WHERE backfill <> 'done'`)
    .pluck()
    .get();
  if (backfilling !== 0) return [];
  const problems: string[] = [];
  const deferred = [...DEFERRED_INDEXES, ...DEFERRED_TRIGGERS];
  const present = new Set(await db.prepare(`SELECT name FROM sqlite_master`).pluck().all());
  for (const name of deferred) {
    if (!present.has(name)) problems.push(`${name}: missing with every backfill done`);
  }
  try {
    await db.exec(`INSERT INTO tasks_fts (tasks_fts, rank) VALUES ('integrity-check', 1)`);
  } catch (error) {
    problems.push(`tasks_fts does not match tasks: ${(error as Error).message}`);
  }
  return problems;
}

function tableDifferences(name: TableName, held: Table, truth: Table): string[] {
  const found: string[] = [];
  for (const [key, row] of truth) {
    const mine = held.get(key);
    if (mine === undefined) found.push(`${name} ${key}: missing from the mirror (service ${row})`);
    else if (mine !== row) found.push(`${name} ${key}: mirror ${mine}, service ${row}`);
  }
  for (const [key, row] of held) {
    if (!truth.has(key)) found.push(`${name} ${key}: in the mirror only (${row})`);
  }
  if (found.length <= SHOWN_PER_TABLE) return found;
  return [...found.slice(0, SHOWN_PER_TABLE), `${name}: ${found.length - SHOWN_PER_TABLE} more`];
}

async function mirrorTables(mirror: MirrorHandle): Promise<Record<TableName, Table>> {
  const db = connectionOf(mirror);
  const rows = (sql: string) => db.prepare<[], Record<string, unknown>>(sql).all();
  return {
    projects: keyed(await rows('SELECT * FROM projects'), (r) => [
      r['id'],
      [r['name'], r['active'] === null ? null : r['active'] === 1, r['read_only_reason']],
      r['data'],
    ]),
    tasks: keyed(await rows('SELECT * FROM tasks'), (r) => [
      r['id'],
      [r['project_id'], r['name'], r['start_date'], r['end_date'], r['status'], r['progress']],
      r['data'],
    ]),
    task_assignees: keyed(await rows('SELECT * FROM task_assignees'), (r) => [
      `${String(r['task_id'])}/${String(r['member_id'])}`,
      [],
      undefined,
    ]),
    members: keyed(await rows('SELECT * FROM members'), (r) => [
      `${String(r['project_id'])}/${String(r['id'])}`,
      [r['name'], r['kind']],
      r['data'],
    ]),
    resources: keyed(await rows('SELECT * FROM resources'), (r) => [
      `${String(r['project_id'])}/${String(r['id'])}`,
      [r['name']],
      r['data'],
    ]),
    dependencies: keyed(await rows('SELECT * FROM dependencies'), (r) => [
      `${String(r['project_id'])}/${String(r['id'])}`,
      [r['predecessor_id'], r['successor_id'], r['type']],
      r['data'],
    ]),
  };
}

function serviceTables(service: SimService): Record<TableName, Table> {
  const tables = Object.fromEntries(
    MIRRORED_TABLES.map((name) => [name, new Map<string, string>()]),
  ) as Record<TableName, Table>;
  for (const project of service.listProjects()) {
    const put = (table: TableName, key: string, typed: unknown[], data: unknown) =>
      tables[table].set(key, row(typed, data));
    const p = project.id;
    put('projects', p, [project.name, project.active, project.readOnlyReason], project);
    for (const t of service.listTasks(p)) {
      put('tasks', t.id, [p, t.name, t.startDate, t.endDate, t.status, t.progress], t);
      for (const member of t.assigneeIds) put('task_assignees', `${t.id}/${member}`, [], undefined);
    }
    for (const m of service.listMembers(p)) put('members', `${p}/${m.id}`, [m.name, m.kind], m);
    for (const r of service.listResources(p)) put('resources', `${p}/${r.id}`, [r.name], r);
    for (const d of service.listDependencies(p)) {
      put('dependencies', `${p}/${d.id}`, [d.predecessorId, d.successorId, d.type], d);
    }
  }
  return tables;
}

function keyed(
  rows: Record<string, unknown>[],
  shape: (row: Record<string, unknown>) => [unknown, unknown[], unknown],
): Table {
  const table: Table = new Map();
  for (const r of rows) {
    const [key, typed, data] = shape(r);
    table.set(String(key), row(typed, typeof data === 'string' ? parse(data) : data));
  }
  return table;
}

/** The comparable text of a row: typed columns, then `data` with its keys sorted. */
function row(typed: unknown[], data: unknown): string {
  const columns = JSON.stringify(typed.map((value) => value ?? null));
  return data === undefined ? columns : `${columns} ${JSON.stringify(sorted(data))}`;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return `unparseable: ${text}`;
  }
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return Object.fromEntries(entries.map(([key, inner]) => [key, sorted(inner)]));
}
