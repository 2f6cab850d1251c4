/**
 * The executor of held locks and stalled databases: the daemon's database goes away for a while
 * of real time (the store's waits are real, whatever the case's clock says) while other steps
 * happen, then comes back.
 *
 * - A held lock: another connection (`LockHolder`, on a thread of its own) holds what the
 *   daemon's writes need. On SQLite, the write lock (`BEGIN IMMEDIATE`): held past the store's
 *   patience (`STORE_BUSY_WAIT_MS`), units fail with SQLITE_BUSY; held less, they wait and pass.
 *   On PostgreSQL, `LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE`: every unit touching tasks waits
 *   for the same patience (the session's `lock_timeout`), then fails; a long hold outlasts that
 *   and a lease. Items queued during
 *   the hold are queued by the holder, in its transaction, as a script holding the lock would.
 * - A stalled database: on PostgreSQL, the proxy between the daemons and the server stops
 *   forwarding (a partition: no packet, no reset), then forwards again. SQLite has no network
 *   to cut and a file that stops answering is a lock held by another connection (the exclusive
 *   locking mode that would keep readers out too cannot be taken while the daemon has the file
 *   open in WAL mode), so on SQLite a stall is a held lock, always past the store's patience.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LockHolder } from '../../fixtures/lock-holder.js';
import { STORE_BUSY_WAIT_MS, STORE_PROBE_MS } from './host.js';
import type { StepContext } from './perform.js';
import type { OutageStep, Step } from './steps.js';

/** Real time an outage lasts past its steps, on SQLite: within the store's patience, or past it. */
const SQLITE_OUTAGE_MS = { short: STORE_BUSY_WAIT_MS / 2, long: 2.5 * STORE_BUSY_WAIT_MS };
/** Real time an outage lasts past its steps on PostgreSQL, short; a long one outlasts a lease. */
const POSTGRES_SHORT_OUTAGE_MS = 500;
/** The holder lets go on its own this long after the outage should have ended (a stuck harness). */
const HOLDER_SAFETY_MS = 30_000;
/** Probes of the store after an outage, so that the daemon has seen the store back. */
const PROBES_AFTER = 3;

/** Runs `step`: takes the database away, runs its steps with `perform`, gives it back. */
export async function performOutage(
  step: OutageStep,
  context: StepContext,
  perform: (step: Step, context: StepContext) => Promise<void>,
): Promise<void> {
  const { mirror, driver, trace } = context;
  const ms = outageMs(step, context);
  const cut = step.kind === 'stalledDatabase' ? mirror.network : undefined;
  const holder = cut === undefined ? new LockHolder(mirror.holder) : undefined;
  const what = cut ? 'network to the database cut' : `${mirror.holder.engine} lock held`;
  const began = Date.now();
  let waiting = 0;
  try {
    if (holder) await holder.hold(ms + HOLDER_SAFETY_MS);
    else cut!.partition();
    driver.outage = true;
    trace.push(`${step.kind}: ${what}`);
    const during = holder ? { ...context, runSql: holder.value.bind(holder) } : context;
    for (const inner of step.during) await perform(inner, during);
    await sleep(ms);
    waiting = context.host.storeDepth;
  } finally {
    if (holder) {
      await holder.release().catch(() => undefined);
      await holder.close();
    } else cut?.heal();
    driver.outage = false;
  }
  context.outages.push({ waiting });
  const held = `${what} for ${Date.now() - began} ms (real)`;
  trace.push(`${step.kind}: ${held}, ${waiting} units waiting, now given back`);
  await driver.settle(); // the units that waited end
  await sleep(PROBES_AFTER * STORE_PROBE_MS);
  await driver.settle();
}

/** How long the database stays away after the outage's steps (real time). */
function outageMs(step: OutageStep, context: StepContext): number {
  const { mirror } = context;
  if (mirror.holder.engine === 'sqlite') {
    const long = step.long || step.kind === 'stalledDatabase';
    return long ? SQLITE_OUTAGE_MS.long : SQLITE_OUTAGE_MS.short;
  }
  return step.long ? (mirror.leaseMs ?? 0) + POSTGRES_SHORT_OUTAGE_MS : POSTGRES_SHORT_OUTAGE_MS;
}
