/**
 * The executor of each step kind of `steps.ts`: service changes (now, or armed for the next
 * pass), outbox items, HTTP faults, realtime drops, restarts and kills, bad events, hint floods
 * and pauses; held locks and stalled databases are `outage.ts`'s. Each step leaves one line in
 * the case's trace saying what it actually did.
 */
import type { ManualClock } from '../../../src/domain/index.js';
import type { FaultKind, Simulator } from '../../../src/sim/index.js';
import type { Db } from '../../../src/store/db.js';
import { flawedEvent, hintMessage, type Announcer } from './announce.js';
import type { DaemonHost } from './host.js';
import type { CaseMirror } from './mirror.js';
import { queueItem, type QueuedItem, type RunSql } from './outbox.js';
import { performOutage } from './outage.js';
import { applyServiceChange, pickOf, type ChangeContext } from './service-changes.js';
import type { ClockDriver } from './settle.js';
import type { FaultChoice, Step } from './steps.js';

/** Everything a step may act on, and what the case records. */
export interface StepContext {
  sim: Simulator;
  clock: ManualClock;
  /** Our own connection to the mirror: reads the tables. */
  db: Db;
  /** Where the case's mirror is: the daemons' location, the lock holder's, the network. */
  mirror: CaseMirror;
  /** Queues items: our own connection, or during a held lock the connection holding it. */
  runSql: RunSql;
  host: DaemonHost;
  driver: ClockDriver;
  announcer: Announcer;
  /** The first task of each project: outbox updates target it, changes never delete it. */
  pinned: Map<string, string>;
  items: QueuedItem[];
  trace: string[];
  /** Hint floods that cost more than allowed. */
  budgetProblems: string[];
  /** Held locks and stalled databases played: units of the store waiting when each ended. */
  outages: { waiting: number }[];
  newName: (prefix: string) => string;
}

/** A flood may cost this many reconciles of every project (one, plus one already due). */
export const FLOOD_RECONCILES_ALLOWED = 2;
/** After a flood, the daemon gets this long (simulated) to finish the refreshes it caused. */
const FLOOD_TAIL_MS = 5_000;
/** A stop must finish within this (simulated). */
const STOP_HORIZON_MS = 60_000;

const FAULTS: Record<FaultChoice, { kind: FaultKind; status?: number }> = {
  http500: { kind: 'status', status: 500 },
  http503: { kind: 'status', status: 503 },
  drop: { kind: 'drop' },
  commitThenDrop: { kind: 'commitThenDrop' },
};

/** Runs one step. */
export async function performStep(step: Step, context: StepContext): Promise<void> {
  const { sim, host, driver, trace } = context;
  switch (step.kind) {
    case 'change':
      trace.push(`${change(step, context)} [${step.announce}]`);
      context.clock.stepTo(context.clock.now() + 1); // the next write gets a later updatedAt
      return;
    case 'duringNextPass':
      return armForNextPass(step, context);
    case 'outbox':
      return queue(step, context);
    case 'fault': {
      const { kind, status } = FAULTS[step.fault];
      const reads = step.on === 'read';
      sim.faults.failNext({
        route: '*',
        kind,
        ...(status === undefined ? {} : { status }),
        count: step.count,
        when: (request) => step.on === 'any' || (request.method === 'GET') === reads,
      });
      trace.push(`fault armed: next ${step.count} ${step.on} requests ${step.fault}`);
      return;
    }
    case 'realtimeDrop':
      if (step.refusals > 0) sim.realtime.refuseNext(step.refusals);
      sim.realtime.dropAll();
      trace.push(`realtime dropped, next ${step.refusals} upgrades refused`);
      return;
    case 'restart':
      await driver.drive(host.stop(), STOP_HORIZON_MS, 'a stop');
      await host.start();
      await host.handedOver(context.db);
      trace.push('daemon stopped and started again on the same mirror');
      return;
    case 'kill':
      host.kill();
      await host.start();
      await host.handedOver(context.db);
      trace.push('daemon killed; a new one started on the same mirror');
      return;
    default:
      return performOther(step, context);
  }
}

async function performOther(step: Step, context: StepContext): Promise<void> {
  const { sim, driver, trace } = context;
  switch (step.kind) {
    case 'badEvent': {
      const project = pickOf(sim.service.listProjects(), step.project);
      const task = project && pickOf(sim.service.listTasks(project.id), step.task);
      if (project === undefined || task === undefined) return;
      sim.realtime.sendRaw(flawedEvent(project.id, task, step.flaw));
      trace.push(`bad event (${step.flaw}) about ${task.id} of ${project.id}`);
      return;
    }
    case 'hintFlood':
      return flood(step, context);
    case 'pause':
      await driver.advance(step.ms);
      trace.push(`pause ${step.ms} ms`);
      return;
    case 'heldLock':
    case 'stalledDatabase':
      return performOutage(step, context, performStep);
    default:
      throw new Error(`no executor for step ${step.kind}`);
  }
}

function change(step: Extract<Step, { kind: 'change' | 'duringNextPass' }>, context: StepContext) {
  const changes: ChangeContext = {
    service: context.sim.service,
    pinnedTasks: new Set(context.pinned.values()),
    newName: context.newName,
  };
  return context.announcer.during(step.announce, () => applyServiceChange(step.change, changes));
}

function armForNextPass(step: Extract<Step, { kind: 'duringNextPass' }>, context: StepContext) {
  const project = pickOf(context.sim.service.listProjects(), step.change.project);
  if (project === undefined) return;
  context.sim.faults.beforePage(project.id, 1, () => {
    context.trace.push(`  mid-pass of ${project.id}: ${change(step, context)} [${step.announce}]`);
  });
  context.trace.push(`armed for the next read of ${project.id} page 1: ${step.change.kind}`);
}

async function queue(step: Extract<Step, { kind: 'outbox' }>, context: StepContext) {
  const { runSql, sim, pinned, newName } = context;
  const item = await queueItem(runSql, sim.service, step.item, (p) => pinned.get(p), newName);
  if (item === undefined) return;
  context.items.push(item);
  context.trace.push(`outbox item ${item.id}: ${item.op} in ${item.projectId} ${item.name ?? ''}`);
}

/** Sends hint messages spaced in simulated time, and checks what the refreshes cost. */
async function flood(step: Extract<Step, { kind: 'hintFlood' }>, context: StepContext) {
  const { sim, driver, host } = context;
  const project = step.namesProject ? pickOf(sim.service.listProjects(), step.project) : undefined;
  const before = reads(sim);
  for (let sent = 0; sent < step.messages; sent += 1) {
    sim.realtime.sendRaw(hintMessage(project?.id));
    await driver.advance(step.spacingMs);
  }
  await driver.advance(FLOOD_TAIL_MS);
  const spent = reads(sim) - before;
  const allowed = FLOOD_RECONCILES_ALLOWED * reconcileCost(sim, host.pageSize);
  const what = `a flood of ${step.messages} hints ${step.spacingMs} ms apart naming ${project?.id ?? 'nothing'}`;
  context.trace.push(`${what}: ${spent} reads`);
  if (spent > allowed) {
    context.budgetProblems.push(
      `${what} cost ${spent} reads; ${FLOOD_RECONCILES_ALLOWED} reconciles cost ${allowed}`,
    );
  }
}

/** Reads the simulator answered (GETs; realtime upgrades aside). */
function reads(sim: Simulator): number {
  return sim.requestLog.count({ method: 'GET', where: (entry) => entry.route !== 'realtime' });
}

/** Requests of one reconcile: list projects, then get project, the pages and three lists each. */
function reconcileCost(sim: Simulator, pageSize: number): number {
  const projects = sim.service.listProjects();
  const pages = (id: string) => Math.max(1, Math.ceil(sim.service.taskCount(id) / pageSize));
  return 1 + projects.reduce((sum, project) => sum + 4 + pages(project.id), 0);
}
