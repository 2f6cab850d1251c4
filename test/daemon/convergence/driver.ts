/**
 * Plays one case of the convergence property against the real daemon and the real simulator
 * over real sockets, on one manual clock shared by both: the steps, then quiet, then at most one
 * reconcile, then the verdict. A case owns everything it starts and closes it all, pass or fail.
 *
 * The verdict (issue 10, "Proof"): after quiet (no more changes, no more faults, the daemon left
 * to run for `QUIET_HORIZON_MS` of simulated time) and at most one reconcile, every mirrored
 * table equals the service, and every outbox item is done and took effect exactly once. The
 * reconcile is allowed only when some change reached no client with its record or the realtime
 * connection dropped (a reconnect, a restart or a kill). The daemon never throws out of start,
 * stop or a reconcile. Apart from the verdict, each hint flood's cost is checked against
 * `FLOOD_RECONCILES_ALLOWED` reconciles (`budgetProblems`).
 */
import { ManualClock } from '../../../src/domain/index.js';
import { startSimulator, type SimReadings, type Simulator } from '../../../src/sim/index.js';
import type { Db } from '../../../src/store/db.js';
import { Announcer } from './announce.js';
import { derivedProblems, mirrorDifferences } from './compare.js';
import { DaemonHost } from './host.js';
import { sqliteMirrors, type CaseMirror, type MirrorSource } from './mirror.js';
import { outboxProblems, runOn, type QueuedItem } from './outbox.js';
import { ClockDriver } from './settle.js';
import { performStep, type StepContext } from './perform.js';
import type { ConvergenceCase } from './steps.js';

/** The (obviously fake) token of the seeded user. */
export const CASE_TOKEN = 'glt_test_convergence_property';
/** Simulated time every case starts at: a Monday morning, far from the quota day's reset. */
const CASE_START = Date.UTC(2026, 10, 23, 9, 0, 0);
/** How long the daemon runs on its own after the last step (simulated): retries, backoff, reconnects. */
export const QUIET_HORIZON_MS = 5 * 60_000;
/** The first start-up, a stop or the reconcile must finish within this (simulated). */
const OPERATION_HORIZON_MS = 5 * 60_000;
/** A case that has not ended after this long (real time) is stuck. */
const CASE_TIMEOUT_MS = 60_000;

/** What a case found: empty `problems` when the property holds. */
export interface CaseResult {
  /** Where the mirror or the outbox did not converge, and what the daemon threw. */
  problems: string[];
  /** Hint floods that cost more than `FLOOD_RECONCILES_ALLOWED` reconciles. */
  budgetProblems: string[];
  /** Outages played (held locks, stalled databases). */
  outages: number;
  /** The mirror still differed after quiet, and the one reconcile was run. */
  reconciled: boolean;
  /**
   * Task pages past the first that the service answered (200 or 304): a pass read a project over
   * several pages (a PostgreSQL backfill writes two a statement).
   */
  laterPages: number;
  /** What happened, step by step, as the simulator and the daemon saw it. */
  trace: string[];
}

/**
 * When the one reconcile is allowed: `unannounced` when some change reached no client with its
 * record (the issue 10 property), `unheard` only when some change reached no client at all: an
 * event without its record still tells the daemon what to read (issue 34).
 */
export type ReconcileRule = 'unannounced' | 'unheard';

/**
 * Watches a case from outside the daemon, as a reader of its mirror would (the change feed's
 * consumers): after the start and each step, and at the end, once the mirror has converged.
 */
export interface CaseObserver {
  /** After the daemon's start (`step` -1) and after each step. */
  afterStep(db: Db, step: number): Promise<void>;
  /** Each time quiet looks whether the mirror has converged, while the daemon still works. */
  whileQuiet(db: Db): Promise<void>;
  /** Once the case is quiet and its verdict taken: what the observer found wrong. */
  finish(db: Db): Promise<string[]>;
}

/** Plays `testCase` against a simulator with `readings`, on a fresh mirror from `mirrors`. */
export async function playCase(
  testCase: ConvergenceCase,
  readings: Partial<SimReadings>,
  mirrors: MirrorSource = sqliteMirrors,
  rule: ReconcileRule = 'unannounced',
  observer?: CaseObserver,
): Promise<CaseResult> {
  const run = await CaseRun.open(testCase.tasks, readings, mirrors(), rule, observer);
  try {
    return await run.play(testCase);
  } catch (error) {
    run.context.trace.push(`harness stopped: ${(error as Error).message}`);
    return { problems: [`the case did not finish: ${(error as Error).message}`], ...run.result() };
  } finally {
    await run.close();
  }
}

/** The simulator, the daemons and the bookkeeping of one case. */
class CaseRun {
  private reconciled = false;

  private constructor(
    readonly context: StepContext,
    private readonly mirror: CaseMirror,
    private readonly rule: ReconcileRule,
    private readonly observer: CaseObserver | undefined,
  ) {}

  static async open(
    tasks: number[],
    readings: Partial<SimReadings>,
    mirror: CaseMirror,
    rule: ReconcileRule,
    observer?: CaseObserver,
  ): Promise<CaseRun> {
    const clock = new ManualClock(CASE_START);
    const sim = await startSimulator({
      host: '127.0.0.1',
      port: 0,
      clock,
      seed: 7,
      projects: tasks.length,
      tasks,
      membersPerProject: 3,
      resourcesPerProject: 2,
      dependenciesPerProject: 2,
      tokens: [CASE_TOKEN],
      readings,
    });
    const db = await mirror.open();
    const host = new DaemonHost(sim, clock, mirror);
    const version = () => mirror.version(db);
    const driver = new ClockDriver(sim, clock, host, version, Date.now() + CASE_TIMEOUT_MS);
    return new CaseRun(newContext(sim, clock, db, mirror, host, driver), mirror, rule, observer);
  }

  async play(testCase: ConvergenceCase): Promise<CaseResult> {
    const { host, driver, trace } = this.context;
    for (const step of testCase.beforeStart) await performStep(step, this.context);
    await host.start();
    trace.push('daemon started');
    if (testCase.settleAfterStart) {
      await driver.drive(host.started, OPERATION_HORIZON_MS, 'the first start-up');
    }
    await this.observer?.afterStep(this.context.db, -1);
    for (const [index, step] of testCase.steps.entries()) {
      await performStep(step, this.context);
      await this.observer?.afterStep(this.context.db, index);
    }
    const problems = await this.quiet();
    if (this.observer !== undefined)
      problems.push(...(await this.observer.finish(this.context.db)));
    return { problems, ...this.result() };
  }

  /** Quiet, then at most one reconcile; returns what still differs. */
  private async quiet(): Promise<string[]> {
    const { sim, clock, db, driver, host, trace } = this.context;
    await host.handedOver(db);
    sim.faults.clear();
    driver.countArrivals();
    trace.push('quiet');
    const converged = async () => {
      await this.observer?.whileQuiet(db);
      return (await this.differences()).length === 0;
    };
    let equal = await driver.runUntil(converged, clock.now() + QUIET_HORIZON_MS);
    const reasons = this.reconcileReasons();
    if (!equal && reasons.length > 0) {
      trace.push(`one reconcile, allowed because ${reasons.join('; ')}`);
      this.reconciled = true;
      await driver.drive(host.reconcile(), OPERATION_HORIZON_MS, 'the reconcile');
      equal = await driver.runUntil(converged, clock.now());
    } else if (!equal) {
      const heard =
        this.rule === 'unannounced'
          ? 'every change came with its record'
          : 'every change was heard';
      trace.push(`no reconcile allowed: ${heard}, no connection dropped`);
    }
    return [...(await this.differences()), ...host.errors];
  }

  private async differences(): Promise<string[]> {
    const { db, sim, items } = this.context;
    return [
      ...(await mirrorDifferences(db, sim.service)),
      ...(await derivedProblems(db)),
      ...(await outboxProblems(db, sim.service, items)),
    ];
  }

  /** Why a reconcile may be needed; none when the daemon heard of every change with its record. */
  private reconcileReasons(): string[] {
    const { sim, announcer } = this.context;
    const reasons: string[] = [];
    if (this.rule === 'unannounced' && announcer.someChangeUnannounced) {
      reasons.push('a change reached no client with its record');
    }
    if (this.rule === 'unheard' && announcer.someChangeUnheard) {
      reasons.push('a change reached no client');
    }
    const connections = sim.requestLog.count({ route: 'realtime', status: 101 });
    if (connections > 1)
      reasons.push(`the realtime connection dropped (${connections} connections)`);
    return reasons;
  }

  result(): Omit<CaseResult, 'problems'> {
    const { budgetProblems, outages, trace, sim } = this.context;
    const laterPages = sim.requestLog.entries.filter(
      ({ route, status, path }) =>
        route === 'listTasks' &&
        (status === 200 || status === 304) &&
        !/[?&]page=1(&|$)/.test(path),
    ).length;
    return {
      budgetProblems,
      outages: outages.length,
      reconciled: this.reconciled,
      laterPages,
      trace,
    };
  }

  async close(): Promise<void> {
    const { host, db, sim } = this.context;
    await host.close();
    db.close();
    await sim.close();
    await this.mirror.dispose();
  }
}

function newContext(
  sim: Simulator,
  clock: ManualClock,
  db: Db,
  mirror: CaseMirror,
  host: DaemonHost,
  driver: ClockDriver,
): StepContext {
  let named = 0;
  const pinned = new Map<string, string>();
  for (const project of sim.service.listProjects()) {
    const [first] = sim.service.listTasks(project.id);
    if (first !== undefined) pinned.set(project.id, first.id);
  }
  return {
    sim,
    clock,
    db,
    mirror,
    runSql: runOn(db),
    host,
    driver,
    announcer: new Announcer(sim),
    pinned,
    items: [] as QueuedItem[],
    trace: [],
    budgetProblems: [],
    outages: [],
    newName: (prefix) => `${prefix}-${(named += 1)}`,
  };
}
