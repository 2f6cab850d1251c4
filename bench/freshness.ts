/**
 * Benchmark 4: realtime freshness. A task is renamed on the simulator; the time until the mirror
 * (read by a separate read-only connection) shows the new name, over many changes one after the
 * other, with the HTTP requests they cost. The baseline is the channel itself: a bare WebSocket
 * client on the same realtime URL, timed from the same write to the event's arrival.
 * A second line does the same with events that carry no record, which cost a read each.
 */
import WebSocket from 'ws';
import { startSimulator, type Simulator } from '../src/sim/index.js';
import { openDatabase, type SqliteDb } from '../src/store/database.js';
import { startBenchDaemon } from './daemon.js';
import { duration, num, type Figure } from './figure.js';
import { pause, quantile, since } from './harness.js';

/** Changes timed with records in the events. */
export const FRESHNESS_CHANGES = 300;
/** Changes timed with data-less events (each waits out the coalescing window). */
export const DATALESS_CHANGES = 10;
/** The p95 the mirror must reach on loopback. */
export const FRESHNESS_TARGET_P95_MS = 250;
const PROJECT_TASKS = 2_000;
const LANDING_TIMEOUT_MS = 10_000;
const GAP_MS = 10;

/** Runs benchmark 4; returns its figures. */
export async function freshnessBenchmarks(
  changes = FRESHNESS_CHANGES,
  datalessChanges = DATALESS_CHANGES,
): Promise<Figure[]> {
  const sim = await startSimulator({ projects: 1, tasks: PROJECT_TASKS });
  const bench = await startBenchDaemon(sim, { realtime: true });
  const reader = openDatabase(bench.mirror.file, { readonly: true });
  const bare = await bareClient(sim);
  try {
    await waitFor(() => bench.daemon.connected, 'the daemon to connect');
    const withData = await timeChanges(sim, reader, bare, changes, 'fresh');
    sim.realtime.includeData = false;
    const withoutData = await timeChanges(sim, reader, bare, datalessChanges, 'dataless');
    return [dataFigure(withData), datalessFigure(withoutData)];
  } finally {
    bare.socket.close();
    reader.close();
    await bench.stop();
    await sim.close();
  }
}

/** A plain `ws` client of the realtime channel that notes when each task name arrives. */
interface BareClient {
  socket: WebSocket;
  /** `performance.now()` at the arrival of the event naming the task with this name. */
  arrivals: Map<string, number>;
}

async function bareClient(sim: Simulator): Promise<BareClient> {
  const socket = new WebSocket(sim.realtimeUrl, {
    headers: { Authorization: `Bearer ${sim.token}` },
  });
  const arrivals = new Map<string, number>();
  socket.on('message', (raw: Buffer) => {
    const at = performance.now();
    const event = JSON.parse(raw.toString('utf8')) as { id?: string; data?: { name?: string } };
    const key = event.data?.name ?? event.id;
    if (key !== undefined && !arrivals.has(key)) arrivals.set(key, at);
  });
  await new Promise<void>((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, arrivals };
}

interface Timings {
  changes: number;
  /** Write to mirror row, per change. */
  mirrorMs: number[];
  /** Write to the bare client's arrival, per change. */
  channelMs: number[];
  requests: number;
}

/** Renames `count` tasks one after the other, each time waiting until the mirror shows it. */
async function timeChanges(
  sim: Simulator,
  reader: SqliteDb,
  bare: BareClient,
  count: number,
  prefix: string,
): Promise<Timings> {
  const tasks = sim.service.listTasks('p_1');
  const nameOf = reader.prepare('SELECT name FROM tasks WHERE id = ?').pluck();
  const timings: Timings = { changes: count, mirrorMs: [], channelMs: [], requests: 0 };
  const requestsBefore = sim.requestLog.count();
  for (let index = 0; index < count; index += 1) {
    const task = tasks[index % tasks.length]!;
    const name = `${prefix} ${index}`;
    const start = performance.now();
    sim.service.updateTask(task.id, { name });
    while (nameOf.get(task.id) !== name) {
      if (since(start) > LANDING_TIMEOUT_MS) throw new Error(`change ${name} never landed`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    timings.mirrorMs.push(since(start));
    const arrival = bare.arrivals.get(name) ?? bare.arrivals.get(task.id);
    bare.arrivals.clear();
    if (arrival !== undefined) timings.channelMs.push(arrival - start);
    await pause(GAP_MS);
  }
  timings.requests = sim.requestLog.count() - requestsBefore;
  return timings;
}

function dataFigure(timings: Timings): Figure {
  const p50 = quantile(timings.mirrorMs, 0.5);
  const p95 = quantile(timings.mirrorMs, 0.95);
  const channel95 = quantile(timings.channelMs, 0.95);
  const perChange = timings.requests / timings.changes;
  const met = p95 <= FRESHNESS_TARGET_P95_MS && timings.requests === 0;
  return {
    id: '4',
    title: `Realtime freshness, ${timings.changes} changes, events with data`,
    value: `write to mirror row p50 ${duration(p50)}, p95 ${duration(p95)}; ${num(perChange, 2)} requests per change`,
    baseline:
      `bare WebSocket client, write to event p50 ${duration(quantile(timings.channelMs, 0.5))}, ` +
      `p95 ${duration(channel95)}: p95 ratio ${num(p95 / channel95, 1)}`,
    target: `p95 <= ${FRESHNESS_TARGET_P95_MS} ms, zero requests`,
    met,
    ...(met ? {} : { note: `p95 ${duration(p95)}, ${timings.requests} requests` }),
  };
}

function datalessFigure(timings: Timings): Figure {
  const perChange = timings.requests / timings.changes;
  return {
    id: '4b',
    title: `Realtime freshness, ${timings.changes} changes, events without data`,
    value:
      `write to mirror row p50 ${duration(quantile(timings.mirrorMs, 0.5))}, ` +
      `p95 ${duration(quantile(timings.mirrorMs, 0.95))}; ${num(perChange, 2)} requests per change`,
    baseline: `bare client p95 ${duration(quantile(timings.channelMs, 0.95))}`,
    target: 'none (informative: one coalescing window and one get task per change)',
    met: true,
  };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = performance.now();
  while (!check()) {
    if (since(start) > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await pause(10);
  }
}
