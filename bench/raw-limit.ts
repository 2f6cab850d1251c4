/**
 * The raw limit of a cold sync: the same page bodies the simulator serves, fetched beforehand, then
 * `JSON.parse` of each page and a plain better-sqlite3 insert loop into plain tables with the
 * mirror's columns and primary keys only (no trigger, no secondary index, no full-text index),
 * one transaction per page, in a file with the mirror's page size. Nothing else: no HTTP, no
 * ETags, no validation. Beside it, the same loop with one of the mirror's features added at a
 * time, done as the mirror does it, so that each feature's cost reads as the difference.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Task } from '../src/domain/index.js';
import { FieldCatalog } from '../src/store/data-fields.js';
import { schemaObjectSql } from '../src/store/derived-objects.js';
import { MIRROR_PAGE_SIZE, type SqliteDb as Db } from '../src/store/database.js';
import { connectionOf } from '../src/store/handle.js';
import { encodeRows } from '../src/store/task-pages.js';
import { since } from './harness.js';

/** Rows per page, as the mirror asks for them. */
export const RAW_PAGE_SIZE = 500;

/** Fetches every task page of `projectId` as text (untimed). */
export async function fetchPages(
  baseUrl: string,
  token: string,
  projectId: string,
  taskCount: number,
): Promise<string[]> {
  const pages: string[] = [];
  const count = Math.ceil(taskCount / RAW_PAGE_SIZE);
  for (let page = 1; page <= count; page += 1) {
    const url = `${baseUrl}/projects/${projectId}/tasks?page=${page}&pageSize=${RAW_PAGE_SIZE}`;
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`raw fetch of page ${page}: HTTP ${response.status}`);
    pages.push(await response.text());
  }
  return pages;
}

/** The mirror's task tables with their columns and primary keys, nothing more. */
const PLAIN_TABLES = `
CREATE TABLE tasks (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, name TEXT, start_date DATE, end_date DATE,
  status TEXT, progress REAL, updated_at TIMESTAMP, data TEXT NOT NULL, synced_at TIMESTAMP NOT NULL
);
CREATE TABLE task_assignees (
  task_id TEXT NOT NULL, member_id TEXT NOT NULL, PRIMARY KEY (task_id, member_id)
) WITHOUT ROWID;`;

/** The tasks' secondary indexes of schema.sql (a cold sync builds them at its commit). */
function createSecondaryIndexes(db: Db): void {
  db.exec(`CREATE INDEX tasks_by_project ON tasks (project_id, status);
    CREATE INDEX task_assignees_by_member ON task_assignees (member_id);
    CREATE INDEX tasks_open_by_end_date ON tasks (end_date) WHERE status IS NOT 'Done'`);
}

/** One of the mirror's features, added to the raw loop as the mirror does it. */
interface RawFeature {
  name: string;
  /** Runs once before the load (DDL), for the project `projectId`. */
  setUp?(db: Db, projectId: string): void;
  /** Runs inside each page's transaction, after its rows (awaited, as the mirror's store is). */
  page?(
    db: Db,
    rows: readonly Task[],
    texts: readonly string[],
    page: number,
  ): void | Promise<void>;
  /** Runs once after the load (a backfill's end). */
  finish?(db: Db, projectId: string): void;
}

/** The features whose costs benchmark 1 shows, each as the mirror does it on a cold sync. */
export const RAW_FEATURES: readonly RawFeature[] = [
  {
    name: 'FTS',
    setUp: (db) =>
      db.exec(`CREATE VIRTUAL TABLE tasks_fts USING fts5(name, content = 'tasks',
        content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 2', columnsize = 0)`),
    finish: (db) => db.exec(`INSERT INTO tasks_fts (tasks_fts) VALUES ('rebuild')`),
  },
  (() => {
    let catalog: FieldCatalog | undefined;
    return {
      name: 'field discovery',
      setUp: (db: Db) => {
        db.exec(`CREATE TABLE data_fields (record_kind TEXT NOT NULL, field TEXT NOT NULL,
          value_type TEXT NOT NULL, first_seen_at TIMESTAMP NOT NULL,
          PRIMARY KEY (record_kind, field, value_type)) WITHOUT ROWID`);
        catalog = new FieldCatalog(connectionOf(db));
      },
      page: (_db: Db, rows: readonly Task[]) =>
        catalog?.note('tasks', rows, new Date().toISOString()),
    };
  })(),
  {
    // A backfill keeps a page of tasks all new by reference: its ids (schema.sql, task_pages).
    name: 'kept pages (by reference: the ids)',
    setUp: (db) =>
      db.exec(`CREATE TABLE task_pages (project_id TEXT NOT NULL, page_size INTEGER NOT NULL,
        page INTEGER NOT NULL, etag TEXT, row_count INTEGER NOT NULL, read_at TIMESTAMP NOT NULL,
        rows TEXT NOT NULL, PRIMARY KEY (project_id, page_size, page)) WITHOUT ROWID;
        CREATE TABLE task_page_refs (project_id TEXT NOT NULL, page_size INTEGER NOT NULL,
        page INTEGER NOT NULL, PRIMARY KEY (project_id, page_size, page)) WITHOUT ROWID`),
    page: (db, rows, _texts, page) => {
      const ids = JSON.stringify(rows.map((task) => task.id));
      db.prepare('INSERT INTO task_pages VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        'p',
        RAW_PAGE_SIZE,
        page,
        `"e${page}"`,
        rows.length,
        'now',
        ids,
      );
      db.prepare('INSERT INTO task_page_refs VALUES (?, ?, ?)').run('p', RAW_PAGE_SIZE, page);
    },
  },
  {
    // What a later pass keeps of a page answered 200, and what a backfill kept before issue 36.
    name: 'kept pages (by value: every text again)',
    setUp: (db) =>
      db.exec(`CREATE TABLE task_pages (project_id TEXT NOT NULL, page_size INTEGER NOT NULL,
        page INTEGER NOT NULL, etag TEXT, row_count INTEGER NOT NULL, read_at TIMESTAMP NOT NULL,
        rows TEXT NOT NULL, PRIMARY KEY (project_id, page_size, page)) WITHOUT ROWID`),
    page: (db, _rows, texts, page) => {
      db.prepare('INSERT INTO task_pages VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        'p',
        RAW_PAGE_SIZE,
        page,
        `"e${page}"`,
        texts.length,
        'now',
        encodeRows(texts),
      );
    },
  },
  {
    name: 'history (a row a task; a backfill writes none)',
    setUp: (db) =>
      db.exec(`CREATE TABLE task_history (id INTEGER PRIMARY KEY, task_id TEXT NOT NULL,
        project_id TEXT NOT NULL, observed_at TIMESTAMP NOT NULL, field TEXT NOT NULL,
        old_value TEXT, new_value TEXT)`),
    page: (db, rows) => {
      const insert = db.prepare(
        `INSERT INTO task_history (task_id, project_id, observed_at, field, old_value, new_value)
         VALUES (?, 'p', 'now', 'created', NULL, ?)`,
      );
      for (const task of rows) insert.run(task.id, task.name ?? null);
    },
  },
  // The change feed (issue 37), on a cold sync and as each row written after one costs.
  changeFeed('change feed (a cold sync: triggers deferred, one reload row)', true),
  changeFeed('change feed (a row a task and its assignees, as after a backfill)', false),
  {
    name: 'secondary indexes (built after the load)',
    finish: createSecondaryIndexes,
  },
  {
    name: 'secondary indexes (kept through the inserts: not done on a cold sync)',
    setUp: createSecondaryIndexes,
  },
];

/** CPU time in ms of a `process.cpuUsage` difference. */
export function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1_000;
}

/**
 * Parses and inserts `pages` into fresh plain tables, with `feature` added if given; resolves
 * to the milliseconds it took (parse, inserts and the feature's work, not the DDL).
 */
export async function rawInsertMs(
  projectId: string,
  pages: readonly string[],
  feature?: RawFeature,
): Promise<number> {
  return (await rawInsertCost(projectId, pages, feature)).ms;
}

/** `rawInsertMs`, with the CPU time the process spent meanwhile (user and system, every thread). */
export async function rawInsertCost(
  projectId: string,
  pages: readonly string[],
  feature?: RawFeature,
): Promise<{ ms: number; cpuMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'projmirror-raw-'));
  const db = new Database(join(dir, 'raw.sqlite')) as Db;
  try {
    // The mirror's page size: the floor gets every saving the mirror's file settings give.
    db.pragma(`page_size = ${MIRROR_PAGE_SIZE}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(PLAIN_TABLES);
    feature?.setUp?.(db, projectId);
    const at = new Date().toISOString();
    const insertTask = db.prepare(`INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const insertAssignee = db.prepare('INSERT INTO task_assignees VALUES (?, ?)');
    const writeRows = (rows: Task[]): string[] => {
      const texts: string[] = [];
      for (const task of rows) {
        const text = JSON.stringify(task);
        texts.push(text);
        insertTask.run(
          task.id,
          projectId,
          task.name,
          task.startDate,
          task.endDate,
          task.status,
          task.progress,
          task.updatedAt ?? null,
          text,
          at,
        );
        for (const member of task.assigneeIds ?? []) insertAssignee.run(task.id, member);
      }
      return texts;
    };
    // One transaction a page. A feature's page work may be a promise (the mirror's store is
    // asynchronous), awaited inside it: the transaction is begun and ended by hand, since
    // better-sqlite3's transaction functions take none.
    const writePage = async (rows: Task[], page: number) => {
      db.exec('BEGIN');
      try {
        const texts = writeRows(rows);
        if (feature?.page) await feature.page(db, rows, texts, page);
        db.exec('COMMIT');
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    };
    const start = performance.now();
    const cpu = process.cpuUsage();
    for (const [index, text] of pages.entries()) {
      await writePage(JSON.parse(text) as Task[], index + 1);
    }
    if (feature?.finish) db.transaction(() => feature.finish?.(db, projectId))();
    return { ms: since(start), cpuMs: cpuMs(process.cpuUsage(cpu)) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What each feature adds to the raw loop, in milliseconds (best of `runs` each). */
export async function featureCosts(
  projectId: string,
  pages: readonly string[],
  rawMs: number,
  runs = 2,
): Promise<Array<{ name: string; ms: number }>> {
  const costs: Array<{ name: string; ms: number }> = [];
  for (const feature of RAW_FEATURES) {
    let best = Infinity;
    for (let run = 0; run < runs; run += 1) {
      best = Math.min(best, await rawInsertMs(projectId, pages, feature));
    }
    costs.push({ name: feature.name, ms: best - rawMs });
  }
  return costs;
}

/**
 * The change feed as a feature: `changes`, `change_batch` and schema.sql's insert triggers of tasks
 * and assignees. On a cold sync (`coldSync`) the project's backfill is under way and the triggers
 * are deferred as the mirror defers them (made again at the end, with the one `reload` row);
 * else the project is past its backfill and each row written writes its change.
 */
function changeFeed(name: string, coldSync: boolean): RawFeature {
  const insertTriggers = ['tasks_changes_insert', 'task_assignees_changes_insert'];
  return {
    name,
    setUp: (db, projectId) => {
      db.exec(`CREATE TABLE sync_state (project_id TEXT PRIMARY KEY, backfill TEXT NOT NULL)`);
      db.exec(schemaObjectSql('table', 'changes'));
      db.exec(schemaObjectSql('table', 'change_batch'));
      db.exec(schemaObjectSql('index', 'changes_assignment_deletes'));
      db.exec('INSERT INTO change_batch (id) VALUES (1)');
      db.exec(schemaObjectSql('trigger', 'sync_state_changes_reload'));
      if (coldSync) {
        db.prepare(`INSERT INTO sync_state VALUES (?, 'in_progress')`).run(projectId);
      } else {
        for (const trigger of insertTriggers) db.exec(schemaObjectSql('trigger', trigger));
      }
    },
    finish: (db, projectId) => {
      if (!coldSync) return;
      for (const trigger of insertTriggers) db.exec(schemaObjectSql('trigger', trigger));
      db.prepare(`UPDATE sync_state SET backfill = 'done' WHERE project_id = ?`).run(projectId);
    },
  };
}
