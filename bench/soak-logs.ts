/**
 * Benchmark 12's log lines: the real daemon (`run` as wired: plan, poll scheduler, daily
 * schedule; the store on this thread, so the manual clock stamps its rows) at `info`, against the simulator at the spec's limits, over simulated
 * days of the soak's churn (spread hour by hour), nothing wrong. Counts the lines it logs per
 * simulated day, by message.
 */
import pino from 'pino';
import { createDaemon } from '../src/daemon/compose.js';
import { settle } from './day-daemon.js';
import { benchEngine, tempMirror } from './harness.js';
import { DAY_MS } from './day-workload.js';
import { SOAK_START, startSoakWorkload } from './soak-workload.js';

const HOUR_MS = 3_600_000;
/** The outbox is empty: check it rarely, so that its idle wake-ups do not add steps. */
const OUTBOX_IDLE_MS = 6 * HOUR_MS;

/** Lines logged on each simulated day (1 is the start-up's), by message. */
export type LinesPerDay = Map<number, Map<string, number>>;

/** What the daemon logged, and the requests it made, each simulated day. */
export interface SoakDays {
  lines: LinesPerDay;
  /** Requests the simulator answered each day. */
  requests: Map<number, number>;
  realMs: number;
}

/** Runs the daemon for `days` simulated days; returns its info lines per day. */
export async function soakLogLines(days = 2): Promise<SoakDays> {
  const started = performance.now();
  const workload = await startSoakWorkload(true);
  const { clock } = workload;
  const mirror = tempMirror();
  const lines: LinesPerDay = new Map();
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        const day = Math.floor((clock.now() - SOAK_START) / DAY_MS) + 1;
        const msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
        const counts = lines.get(day) ?? new Map<string, number>();
        counts.set(msg, (counts.get(msg) ?? 0) + 1);
        lines.set(day, counts);
      },
    },
  );
  const engine = await benchEngine(workload.sim.baseUrl, workload.sim.token, mirror.db, { clock });
  const daemon = createDaemon({ engine, logger, outboxIdleMs: OUTBOX_IDLE_MS });
  let running = false;
  let startFailure: unknown;
  try {
    daemon.start().then(
      () => (running = true),
      (error: unknown) => (startFailure = error),
    );
    const end = SOAK_START + days * DAY_MS;
    let nextChurn = SOAK_START + HOUR_MS;
    const requests = new Map<number, number>();
    let counted = 0;
    let nextDay = SOAK_START + DAY_MS;
    while (clock.now() < end) {
      await settle(workload, 2 + (running ? 1 : 0));
      if (startFailure !== undefined) throw startFailure;
      if (clock.now() >= nextDay) {
        requests.set(requests.size + 1, workload.sim.requestLog.total - counted);
        counted = workload.sim.requestLog.total;
        nextDay += DAY_MS;
      }
      clock.stepTo(Math.min(clock.nextWakeAt ?? end, nextChurn, nextDay, end));
      if (clock.now() >= nextChurn) {
        workload.churn.apply(1 / 24);
        nextChurn += HOUR_MS;
      }
    }
    await settle(workload, 3);
    requests.set(requests.size + 1, workload.sim.requestLog.total - counted);
    return { lines, requests, realMs: performance.now() - started };
  } finally {
    await daemon.stop();
    await engine.close();
    await workload.sim.close();
    mirror.dispose();
  }
}
