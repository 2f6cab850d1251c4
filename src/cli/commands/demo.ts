/**
 * `projmirror demo`: the main job end to end against the embedded simulator: sync three sample
 * projects (one of several thousand tasks, one read-only) into ./demo.sqlite with the progress
 * bar, queue a few edits, push them, and show a summary and example queries.
 */
import { existsSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../../domain/index.js';
import { openEngine, type Engine } from '../../daemon/wiring.js';
import { startSimulator, type Simulator } from '../../sim/index.js';
import { openStore } from '../../store/open.js';
import type { CommandBody } from '../command.js';
import { EXIT_FAILED, EXIT_OK } from '../exit.js';
import { plural } from '../plural.js';
import { createProgressView } from '../progress.js';
import { openCommandLogger } from '../session.js';
import { renderExample } from '../demo/queries.js';
import { table } from '../status/render.js';
import { singleToken, type TokenView } from '../../tokens/index.js';

/** The sample data: tasks per project; the last project is read-only. */
export const DEMO_TASKS = [4_200, 120, 40];
export const DEFAULT_DEMO_DB = './demo.sqlite';
/** The `daemon_state` key that marks a file as the demo's, so a rerun may replace it. */
const DEMO_MARK = 'demo';

const out = (text = '') => process.stdout.write(`${text}\n`);

export const body: CommandBody = {
  // PROJMIRROR_* configure a real mirror: the demo must never pick up (and replace) PROJMIRROR_DB.
  builder: (yargs) =>
    yargs
      .env(false)
      .option('db', {
        type: 'string',
        default: DEFAULT_DEMO_DB,
        describe: 'the demo mirror to (re)create',
      })
      .option('log-level', { type: 'string', default: 'error', describe: 'pino log level' }),
  handler: async (args) => {
    const file = String(args['db']);
    await replaceDemoMirror(file);
    const token = `glt_demo_${randomBytes(12).toString('hex')}`;
    const sim = await startSimulator({
      host: '127.0.0.1',
      port: 0,
      projects: DEMO_TASKS.length,
      tasks: DEMO_TASKS,
      readOnlyProjects: 1,
      tokens: [token],
    });
    const { logger, logLines } = openCommandLogger(args, [token]);
    const engine = await openEngine(
      { baseUrl: new URL(sim.baseUrl), tokens: singleToken(token) },
      { db: file, logger },
    );
    await engine.store.state.set(DEMO_MARK, true, new Date().toISOString());
    const view = createProgressView(
      process.stderr,
      logger,
      () => engine.quotaRemaining(),
      logLines,
    );
    engine.onProgress((progress) => view.update(progress));
    try {
      out(`projmirror demo: simulator at ${sim.baseUrl}, mirror at ${file}\n`);
      const synced = await syncTwice(engine, () => view.stop());
      await pushEdits(engine, sim);
      const budget = (engine.tokens()[0] as TokenView).budget;
      out(
        `\nQuota: ${budget.quotaRemaining ?? '?'} of ${budget.quotaLimit ?? '?'} requests left today; ${sim.requestLog.count({ status: 429 })} answers were 429.`,
      );
      out(`\n4. Example queries (sqlite3 ${file}):\n`);
      for (const answer of await engine.store.examples.all()) out(`${renderExample(answer)}\n`);
      out(`Next: projmirror status --db ${file}; projmirror report --db ${file}; the README.`);
      return synced ? EXIT_OK : EXIT_FAILED;
    } finally {
      view.stop();
      await engine.close();
      await sim.close();
    }
  },
};

/** Removes an earlier demo mirror at `file`; refuses to touch any other database. */
async function replaceDemoMirror(file: string): Promise<void> {
  if (existsSync(file)) {
    let isDemo = false;
    try {
      const store = await openStore({ db: file }, 'read');
      try {
        isDemo = (await store.state.get(DEMO_MARK)) === true;
      } finally {
        await store.close();
      }
    } catch {
      isDemo = false;
    }
    if (!isDemo) {
      throw new UsageError(`${file} exists and is not a demo mirror; give the demo another --db`);
    }
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/** A cold sync, then an unchanged pass answered with 304s. True when both were consistent. */
async function syncTwice(engine: Engine, stopProgress: () => void): Promise<boolean> {
  const started = Date.now();
  const report = await engine.mirror.syncAll(undefined, { purpose: 'poll' });
  stopProgress();
  out(
    `1. Synced ${plural(report.projects.length, 'project')} in ${Date.now() - started} ms with ${plural(report.requests, 'request')}:`,
  );
  out(
    table([
      ['project', 'tasks', 'pages', 'requests', 'consistent'],
      ...report.projects.map((p) => [
        p.projectId,
        String(p.tasks),
        String(p.pagesRead),
        String(p.requests),
        p.ok ? 'yes' : `no: ${p.error}`,
      ]),
    ]),
  );
  const again = await engine.mirror.syncAll(undefined, { purpose: 'poll' });
  stopProgress();
  const sum = (key: 'pagesNotModified' | 'pagesRead' | 'rowsWritten') =>
    again.projects.reduce((total, p) => total + p[key], 0);
  out(
    `\n2. A second pass: ${plural(again.requests, 'request')}, ${sum('pagesNotModified')} of ${plural(sum('pagesRead'), 'page')} answered 304, ${plural(sum('rowsWritten'), 'row')} written.`,
  );
  return report.ok && again.ok;
}

/** Queues a create, two updates and an edit of the read-only project, and pushes them. */
async function pushEdits(engine: Engine, sim: Simulator): Promise<void> {
  const { outbox } = engine.store;
  const [first, second] = sim.service.listTasks('p_1');
  const readOnly = sim.service.listProjects().find((p) => p.readOnlyReason !== null);
  const now = Date.now();
  const queued = [
    outbox.enqueue(
      {
        op: 'task.create',
        projectId: 'p_1',
        body: {
          name: 'Inspect bearings (from the demo)',
          startDate: '2026-12-01',
          endDate: '2026-12-05',
          status: 'NotStarted',
        },
      },
      now,
    ),
    outbox.enqueue(
      { op: 'task.update', projectId: 'p_1', targetId: first!.id, body: { progress: 100 } },
      now,
    ),
    outbox.enqueue(
      {
        op: 'task.update',
        projectId: 'p_1',
        targetId: second!.id,
        body: { name: 'Renamed from the outbox' },
      },
      now,
    ),
    outbox.enqueue(
      {
        op: 'task.update',
        projectId: readOnly!.id,
        targetId: sim.service.listTasks(readOnly!.id)[0]!.id,
        body: { progress: 50 },
      },
      now,
    ),
  ];
  await Promise.all(queued);
  const pushed = await engine.pusher().pushOnce({ ignoreBackoff: true });
  out(
    `\n3. Queued ${plural(queued.length, 'edit')} in the outbox and pushed them: ${pushed.done} done, ${pushed.failed} failed (${plural(pushed.requests, 'request')}).`,
  );
  const items = (await outbox.list()).map((item) => [
    item.id,
    item.op,
    item.projectId,
    item.targetId,
    item.state,
    item.lastError,
  ]);
  out(
    table([
      ['id', 'op', 'project', 'target', 'state', 'last_error'],
      ...items.map((row) => row.map((v) => (v === null ? '' : String(v)))),
    ]),
  );
}
