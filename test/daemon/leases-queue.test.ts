/**
 * The leases' heartbeats in the connection's line of units (issue 23): a heartbeat waits behind
 * the unit in hand like any other, so a timer tick while the line is held up must neither pile
 * up heartbeats behind it nor, once `stop()` gave the leases back, take them again. A fake
 * clock drives the timer; the coordination is a recording stand-in (its SQL is tested on a real
 * server in leases.property.test.ts).
 */
import pino from 'pino';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { Coordination } from '../../src/store/postgres/coordination.js';
import { LeaseKeeper } from '../../src/store/thread/leases.js';
import { SerialQueue } from '../../src/store/thread/queue.js';

/** A heartbeat every 10 ms of fake time. */
const LEASE_MS = 30;

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A keeper over a coordination that records its calls, its heartbeats in `queue`. */
async function recordedKeeper(queue: SerialQueue) {
  const calls: string[] = [];
  const coordination = {
    register: () => Promise.resolve(void calls.push('register')),
    heartbeat: () => Promise.resolve(void calls.push('heartbeat')).then(() => []),
    acquire: (_daemon: string, wanted: readonly string[]) => {
      calls.push(`acquire ${wanted.join(',')}`);
      return Promise.resolve({ acquired: [...wanted], held: [...wanted] });
    },
    liveDaemons: () => Promise.resolve([]),
    publishVisible: () => Promise.resolve(),
    release: () => Promise.resolve(void calls.push('release')),
  } as unknown as Coordination;
  const keeper = await LeaseKeeper.start({
    coordination,
    tokens: [],
    version: 'test',
    logger: pino({ level: 'silent' }),
    leaseMs: LEASE_MS,
    serially: (work) => queue.run(work),
  });
  await queue.run(() => keeper.listed(['p_1']));
  return { keeper, calls };
}

/** A unit that holds the line until `release()` (a stalled database). */
function unitInHand(queue: SerialQueue): () => void {
  let release = () => {};
  void queue.run(() => new Promise<void>((resolve) => (release = resolve)));
  return () => release();
}

it('runs one heartbeat, not one per tick, after the line was held up', async () => {
  const queue = new SerialQueue();
  const { keeper, calls } = await recordedKeeper(queue);
  const release = unitInHand(queue);
  await vi.advanceTimersByTimeAsync(5 * (LEASE_MS / 3));
  calls.length = 0;
  release();
  await queue.drained();
  expect(calls.filter((call) => call === 'heartbeat')).toHaveLength(1);
  await queue.run(() => keeper.stop());
});

it('takes no lease back after stop(), whatever ticks came while the stop waited in line', async () => {
  const queue = new SerialQueue();
  const { keeper, calls } = await recordedKeeper(queue);
  const release = unitInHand(queue);
  const stopped = queue.run(() => keeper.stop());
  await vi.advanceTimersByTimeAsync(4 * (LEASE_MS / 3));
  release();
  await stopped;
  await vi.advanceTimersByTimeAsync(4 * (LEASE_MS / 3));
  await queue.drained();
  expect(calls.slice(calls.lastIndexOf('release') + 1)).toEqual([]);
  expect(keeper.snapshot().held).toEqual([]);
});
