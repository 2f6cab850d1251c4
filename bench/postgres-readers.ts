/**
 * Benchmark 8b's passes: repeated passes of the mirrored project into PostgreSQL, each after
 * 2,000 tasks changed in the simulator, alternately without a reader and with a reader process
 * running a heavy report query in a loop on its own connection.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Engine } from '../src/daemon/wiring.js';
import { timedPass } from './cold-sync.js';
import { siblingModule } from './harness.js';
import { recordRoundTrips } from './postgres-profile.js';
import type { ReaderReport } from './postgres-reader.js';
import { RAW_PAGE_SIZE } from './raw-limit.js';

/**
 * Rounds of a pass without and a pass with the reader, interleaved so that a noisy moment hits
 * both alike (a pass over 100,000 tasks takes over half a minute on PostgreSQL).
 */
export const READER_ROUNDS = 2;
/** Every this many pages of the project one page gets changed tasks. */
const CHANGED_PAGE_STRIDE = 10;
/** Tasks changed on each such page: 2,000 over 20 pages of a 100,000-task project. */
const CHANGED_TASKS_PER_PAGE = 100;
/** Simultaneous PATCH requests while changing tasks. */
const CHANGE_CONCURRENCY = 16;
/** How long the reader's query runs before the pass starts, in ms. */
const READER_HEAD_START_MS = 300;

/**
 * The heavy report, as a BI tool might send it: every task of `v_tasks` joined with itself,
 * grouped by status with a distinct count over assignees and names, and the whole of
 * `v_task_status_daily` (about 2 s over 100,000 tasks on the benchmark's machine).
 */
export const HEAVY_REPORT_QUERY = `SELECT a.status, count(*), sum(b.duration_days),
    count(DISTINCT a.assignees || b.task_name),
    (SELECT count(*) FROM v_task_status_daily) AS status_days
  FROM v_tasks a JOIN v_tasks b ON b.task_id = a.task_id
 GROUP BY a.status`;

/** A kind of pass: who reads meanwhile. */
export type ReaderKind = 'none' | 'report';

/** One timed pass of 8b. */
export interface ReaderPass {
  kind: ReaderKind;
  ms: number;
  rowsWritten: number;
  longestCommitMs: number;
  longestTransactionMs: number;
  /** The reader's account, when there was one. */
  reader: ReaderReport | undefined;
}

/** Where the service is and how to reach the database, for the passes. */
export interface ReaderSetting {
  engine: Engine;
  baseUrl: string;
  token: string;
  projectId: string;
  taskCount: number;
  dbUrl: string;
}

/** Runs `READER_ROUNDS` rounds of both kinds of pass; returns every pass. */
export async function readerPasses(setting: ReaderSetting): Promise<ReaderPass[]> {
  const ids = await changedTaskIds(setting);
  const passes: ReaderPass[] = [];
  let change = 0;
  for (let round = 0; round < READER_ROUNDS; round += 1) {
    for (const kind of ['none', 'report'] as const) {
      change += 1;
      await changeTasks(setting, ids, change % 2 === 0 ? 40 : 100);
      passes.push(await passWith(setting, kind));
    }
  }
  return passes;
}

/** One pass, with the reader of `kind` running from before its start to after its end. */
async function passWith(setting: ReaderSetting, kind: ReaderKind): Promise<ReaderPass> {
  const reader = kind === 'none' ? undefined : await startReader(setting.dbUrl, HEAVY_REPORT_QUERY);
  const recorder = recordRoundTrips();
  try {
    const pass = await timedPass(() => setting.engine.mirror.syncAll());
    const { longestCommitMs, longestTransactionMs } = recorder.trips;
    return {
      kind,
      ms: pass.ms,
      rowsWritten: pass.project.rowsWritten,
      longestCommitMs,
      longestTransactionMs,
      reader: await reader?.stop(),
    };
  } finally {
    recorder.stop();
  }
}

/** The ids of the tasks to change: the first tasks of every `CHANGED_PAGE_STRIDE`th page. */
async function changedTaskIds(setting: ReaderSetting): Promise<string[]> {
  const { baseUrl, token, projectId, taskCount } = setting;
  const ids: string[] = [];
  const pages = Math.ceil(taskCount / RAW_PAGE_SIZE);
  for (let page = 1; page <= pages; page += CHANGED_PAGE_STRIDE) {
    const url = `${baseUrl}/projects/${projectId}/tasks?page=${page}&pageSize=${RAW_PAGE_SIZE}`;
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`read page ${page}: HTTP ${response.status}`);
    const rows = (await response.json()) as Array<{ id: string }>;
    ids.push(...rows.slice(0, CHANGED_TASKS_PER_PAGE).map((row) => row.id));
  }
  return ids;
}

/** Sets `progress` on every task of `ids` through the service (so their status follows). */
async function changeTasks(setting: ReaderSetting, ids: string[], progress: number) {
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      const response = await fetch(`${setting.baseUrl}/tasks/${id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${setting.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ progress }),
      });
      if (!response.ok) throw new Error(`change task ${id}: HTTP ${response.status}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CHANGE_CONCURRENCY }, worker));
}

/** A reader process whose query is under way; `stop()` resolves to its report. */
async function startReader(url: string, query: string) {
  const child = spawn(process.execPath, [siblingModule('postgres-reader'), url, query], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const next = lineReader(lines);
  const first = await next();
  if (first !== 'ready') throw new Error(`the reader did not start: ${first ?? 'it exited'}`);
  await new Promise((resolve) => setTimeout(resolve, READER_HEAD_START_MS));
  return {
    stop: async (): Promise<ReaderReport> => {
      child.stdin.end();
      const report = await next();
      if (report === undefined) throw new Error('the reader exited without its report');
      return JSON.parse(report) as ReaderReport;
    },
  };
}

/** Reads `lines` one at a time; undefined once they end. */
function lineReader(lines: ReturnType<typeof createInterface>): () => Promise<string | undefined> {
  const iterator = lines[Symbol.asyncIterator]();
  return async () => {
    const next = await iterator.next();
    return next.done ? undefined : (next.value as string);
  };
}
