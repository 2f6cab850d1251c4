/**
 * A separate reader process (child/reader.mjs: read-only, busy timeout 0, as a BI tool might open
 * the file) queries the mirror in a tight loop while passes run. Each round the service loses 20
 * tasks from its first three pages and gains 20 at its end (the total stays 2,000), and two tasks,
 * one in the first page and one in the last, are both renamed `round N`. A reader that saw a pass
 * half-applied would see another total, or two different `round` names at once.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/daemon/wiring.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { seededRandom } from './helpers.js';
import { singleToken } from '../../src/tokens/index.js';

const READER = fileURLToPath(new URL('./child/reader.mjs', import.meta.url));
const TASKS = 2_000;
const ROUNDS = 12;
const CHURN = 20;
/** Tasks at or past this index are in the last page (500 rows a page); none is deleted. */
const LAST_PAGE_START = 1_500;
/** A window so large it never holds a request back: the simulator runs without limits. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

interface ReaderReport {
  reads: number;
  seen: Record<string, number>;
  errors: string[];
}

/** Starts the reader on `file`; `finish()` closes its stdin and resolves with its report. */
async function startReader(file: string) {
  const child = spawn(process.execPath, [READER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
  expect(await next()).toBe('ready');
  return {
    finish: async (): Promise<ReaderReport> => {
      const report = next();
      child.stdin.end();
      return JSON.parse(await report) as ReaderReport;
    },
  };
}

describe('a reader process during passes', () => {
  it('never gets SQLITE_BUSY and only ever sees whole passes', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: TASKS, limits: false });
    const { db, file } = tempDatabase();
    const engine = await openEngine(
      { baseUrl: new URL(sim.baseUrl), tokens: singleToken(sim.token) },
      {
        db,
        logger: pino({ level: 'silent' }),
        governor: { burstLimit: UNLIMITED, ipLimit: UNLIMITED },
      },
    );
    expect((await engine.mirror.syncAll()).ok).toBe(true);
    const [first, last] = [sim.service.listTasks('p_1')[10]!, sim.service.listTasks('p_1')[1_990]!];
    const random = seededRandom(6_003);
    const reader = await startReader(file);

    for (let round = 0; round < ROUNDS; round += 1) {
      for (let i = 0; i < CHURN; i += 1) {
        const candidates = sim.service
          .listTasks('p_1')
          .slice(0, LAST_PAGE_START)
          .filter((task) => task.id !== first.id);
        sim.service.deleteTask(candidates[Math.floor(random() * candidates.length)]!.id);
        sim.service.createTask('p_1', { name: `added in round ${round}` });
      }
      sim.service.updateTask(first.id, { name: `round ${round}` });
      sim.service.updateTask(last.id, { name: `round ${round}` });
      const result = await engine.mirror.syncProject('p_1');
      expect(result).toMatchObject({ ok: true, tasks: TASKS });
      expect(result.pagesRead - result.pagesNotModified).toBeGreaterThanOrEqual(2);
    }
    const report = await reader.finish();
    await engine.close();

    expect(report.errors).toEqual([]);
    expect(report.reads).toBeGreaterThan(1_000);
    // Before the first pass no task is named `round N`; from then on exactly one name is.
    expect(Object.keys(report.seen).sort()).toEqual([`${TASKS}/0`, `${TASKS}/1`]);
  }, 30_000);
});
