/**
 * Page polls on a shared PostgreSQL mirror (a real server): two daemons, each with its own token,
 * each holding one of two projects by lease (real time), their polls on one fake clock against the
 * simulator.
 * The daemon holding a project with one hot page polls its pages on their own; stopped, it hands
 * the project over, and the other daemon polls the same pages as the first had learned them
 * (issue 35: the estimates live in the database, so a project that changes hands keeps them),
 * every part of both projects read within the bound throughout.
 */
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDaemon } from '../../src/daemon/compose.js';
import type { Daemon } from '../../src/daemon/daemon.js';
import type { PagedProjectPlan } from '../../src/daemon/page-polls.js';
import { openEngine, type Engine } from '../../src/daemon/wiring.js';
import { PartReads, type Simulator } from '../../src/sim/index.js';
import { singleToken } from '../../src/tokens/index.js';
import { FakeClock } from '../fixtures/clock.js';
import { startPostgres } from '../fixtures/postgres.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { eventually, settle } from './fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const BOUND_MS = 3 * HOUR;
/** Tasks per page of the daemons' reads: 300 tasks are three pages. */
const PAGE_SIZE = 100;
const TASKS = 300;
const PROJECTS = ['p_1', 'p_2'];
/** The daemons' lease time (real time): a heartbeat a second. */
const LEASE_MS = 3_000;
/** Each daemon's own token (as `run` is deployed on a shared mirror), each seeing both projects. */
const TOKENS = ['glt_test_page_polls_postgres_a', 'glt_test_page_polls_postgres_b'];

let url: string;

beforeAll(async () => {
  const server = await startPostgres();
  url = await server.database();
}, 60_000);

interface Running {
  daemon: Daemon;
  engine: Engine;
  stop: () => Promise<void>;
}

/** A daemon polling only, on the shared mirror, started (its start-up reconcile done). */
async function start(sim: Simulator, clock: FakeClock, token: string): Promise<Running> {
  const logger = pino({ level: 'silent' });
  const engine = await openEngine(
    { baseUrl: new URL(sim.baseUrl), tokens: singleToken(token) },
    { db: url, logger, clock, leaseMs: LEASE_MS, pageSize: PAGE_SIZE },
  );
  const daemon = createDaemon({
    engine,
    logger,
    maxStalenessMs: BOUND_MS,
    reconcileCron: '0 23 * * *',
    outboxIdleMs: 6 * HOUR,
  });
  await daemon.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await daemon.stop();
    await engine.close();
  };
  return { daemon, engine, stop };
}

/** The plan's entry of `projectId` in `running`'s plan, if it plans it. */
function planned(running: Running, projectId: string): PagedProjectPlan | undefined {
  return running.daemon.plan().projects.find((p) => p.projectId === projectId);
}

describe('page polls on a shared PostgreSQL mirror', () => {
  it('hand a project over with its pages as learned, every part read within the bound', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 1, 0, 0));
    const sim = await startTestSimulator({
      clock,
      projects: PROJECTS.length,
      tasks: TASKS,
      tokens: [TOKENS[0]!],
      quota: 2_000,
    });
    sim.service.createToken({ projects: PROJECTS, label: 'B', value: TOKENS[1]! });
    const first = await start(sim, clock, TOKENS[0]!);
    const second = await start(sim, clock, TOKENS[1]!);
    try {
      const daemons = [first, second];
      // Each holds one project (the first up took both, then gave one back).
      await eventually(
        () =>
          PROJECTS.every((id) => daemons.filter((d) => d.engine.claims.mine(id)).length === 1) &&
          daemons.every((d) => PROJECTS.some((id) => d.engine.claims.mine(id))),
        20_000,
      );
      const holder = daemons.find((d) => d.engine.claims.mine('p_1'))!;
      const other = daemons.find((d) => d !== holder)!;
      const reads = new PartReads(sim.requestLog, PROJECTS);
      let worst = 0;
      // Steps the shared clock wake-up to wake-up (each of the `running` daemons sleeps in two
      // loops), a task of p_1's first page renamed every 20 minutes; after each step, the oldest
      // read of any part of either project.
      const run = async (ms: number, edits: { n: number; next: number }, running: number) => {
        const until = clock.now() + ms;
        while (clock.now() < until) {
          if (clock.now() >= edits.next) {
            const task = sim.service.listTasks('p_1')[edits.n % 50]!;
            sim.service.updateTask(task.id, { name: `edit ${edits.n}` });
            edits.n += 1;
            edits.next += 20 * MINUTE;
          }
          const target = Math.min(clock.nextWakeAt ?? until, edits.next, until);
          await clock.advance(Math.max(0, target - clock.now()));
          // Looks 12 ms apart: a daemon's write to PostgreSQL after its request can outlast
          // three looks 4 ms apart on a loaded machine, and the clock then moved on before it
          // slept (the bound broken by 10-45 minutes in CI, never on a quiet machine).
          await settle(clock, sim, 2 * running, 12);
          reads.update();
          for (const id of PROJECTS) {
            worst = Math.max(worst, clock.now() - reads.oldest(id, TASKS, PAGE_SIZE));
          }
        }
      };
      const edits = { n: 0, next: clock.now() + 20 * MINUTE };
      await run(8 * HOUR, edits, 2);
      // The holder learned that p_1's first page takes the edits: polled more often than the rest.
      const learned = planned(holder, 'p_1')!;
      expect(learned.partsPolled).toBe(true);
      const hot = learned.hotPages?.[0];
      expect(hot?.page).toBe(1);
      const coldMs = (p: PagedProjectPlan, page: number) =>
        p.hotPages?.find((h) => h.page === page)?.intervalMs ?? p.intervalMs;
      expect(coldMs(learned, 3)).toBeGreaterThan(2 * hot!.intervalMs);

      // Stopped, it gives its leases back; the other takes p_1 over and passes it.
      await holder.stop();
      await eventually(() => other.engine.claims.mine('p_1'), 20_000);
      // Its pages as the first daemon learned them, once it adopted their estimates (with the
      // take-over's pass): the first page hot, the third not. Its budget is its own: the
      // intervals differ, not their order.
      const asLearned = (p: PagedProjectPlan | undefined) =>
        p?.partsPolled === true &&
        p.hotPages?.[0]?.page === 1 &&
        coldMs(p, 3) > 2 * p.hotPages[0].intervalMs;
      await eventually(() => asLearned(planned(other, 'p_1')), 10_000).catch(() => {});
      const taken = planned(other, 'p_1')!;
      expect(taken.hotPages?.[0]?.page).toBe(1);
      expect(coldMs(taken, 3)).toBeGreaterThan(2 * taken.hotPages![0]!.intervalMs);

      // And it keeps the bound for both projects from then on.
      await run(6 * HOUR, edits, 1);
      expect(planned(other, 'p_1')!.partsPolled).toBe(true);
      expect(worst).toBeLessThanOrEqual(BOUND_MS);
      expect(sim.requestLog.count({ status: 429 })).toBe(0);
    } finally {
      await first.stop();
      await second.stop();
    }
  }, 300_000);
});
