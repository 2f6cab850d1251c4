/**
 * The daemon's change-rate estimates over an in-memory `change_rates`: passes observed once each,
 * a backfill only starting the clock, what is saved loaded again, and a project taken over from
 * another daemon adopting that daemon's estimate.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PollRates } from '../../src/daemon/poll-rates.js';
import type { ProjectSyncResult } from '../../src/mirror/index.js';
import type { ChangeRateRow } from '../../src/store/change-rates.js';
import type { StatePort } from '../../src/store/port.js';
import { FakeClock } from '../fixtures/clock.js';
import { Prng } from '../../src/sim/model/prng.js';

const HOUR = 3_600_000;
const logger = pino({ level: 'silent' });

/** `change_rates` in memory, shared by the daemons of one test. */
function memoryState(): StatePort & { rows: Map<string, ChangeRateRow> } {
  const rows = new Map<string, ChangeRateRow>();
  const copy = (row: ChangeRateRow) => structuredClone(row);
  return {
    rows,
    get: () => Promise.resolve(undefined),
    set: () => Promise.resolve(),
    delete: () => Promise.resolve(),
    recordTimeZone: () => Promise.resolve(false),
    changeRates: () => Promise.resolve([...rows.values()].map(copy)),
    saveChangeRates: (saved) => {
      for (const row of saved) rows.set(row.key, copy(row));
      return Promise.resolve();
    },
    deleteChangeRates: (keys) => {
      for (const key of keys) rows.delete(key);
      return Promise.resolve();
    },
  };
}

function pass(projectId: string, rowsWritten: number, backfill = false): ProjectSyncResult {
  return {
    projectId,
    ok: true,
    requests: 5,
    pagesRead: 1,
    pagesNotModified: 0,
    rowsWritten,
    historyWritten: 0,
    tasks: 10,
    attempts: 1,
    backfill,
  };
}

describe('PollRates', () => {
  it('counts each pass once, keeps what it learned, and adopts a project another daemon held', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21));
    const state = memoryState();
    const a = new PollRates(clock, state, logger);
    a.passed(pass('p_1', 500, true));
    a.passed(pass('p_2', 500, true));
    for (let hour = 1; hour <= 12; hour += 1) {
      clock.stepTo(clock.now() + HOUR);
      const busy = pass('p_1', 2);
      a.passed(busy);
      a.passed(busy); // a poll and a refresh that joined one pass
      a.passed(pass('p_2', 0));
    }
    await a.save();
    const learned = a.pooled(['p_1', 'p_2']);
    expect(learned.get('p_1')! * HOUR).toBeGreaterThan(1);
    expect(learned.get('p_1')!).toBeGreaterThan(20 * learned.get('p_2')!);
    expect([...state.rows.keys()].sort()).toEqual([
      'p_1',
      'p_1#unannounced',
      'p_2',
      'p_2#unannounced',
    ]);
    // Twelve polls in twelve hours, each found a change: as many as Cho and Garcia-Molina would
    // count (the duplicate was not counted twice, nor the backfill as a poll).
    const buckets = (state.rows.get('p_1')!.state as { buckets: { polls: number }[] }).buckets;
    // Their weights, halving a day, as of the last one.
    const weights = Array.from({ length: 12 }, (_, age) => 2 ** (-age / 24));
    expect(buckets.reduce((sum, b) => sum + b.polls, 0)).toBeCloseTo(
      weights.reduce((x, y) => x + y, 0),
      9,
    );

    const b = new PollRates(clock, state, logger);
    await b.load();
    expect(b.pooled(['p_1', 'p_2'])).toEqual(learned);

    // Another daemon (a) keeps polling p_2, which has woken up; b takes it over later.
    for (let hour = 1; hour <= 6; hour += 1) {
      clock.stepTo(clock.now() + HOUR);
      a.passed(pass('p_2', 3));
    }
    await a.save();
    const before = b.pooled(['p_1', 'p_2']);
    await b.adopt(['p_2']);
    const after = b.pooled(['p_1', 'p_2']);
    expect(after.get('p_2')!).toBeGreaterThan(10 * before.get('p_2')!);
    expect(after.get('p_2')).toBe(a.pooled(['p_1', 'p_2']).get('p_2'));

    // p_1 is gone from the service: its estimate too.
    await b.forget(['p_1']);
    expect([...state.rows.keys()].sort()).toEqual(['p_2', 'p_2#unannounced']);
  });

  it('counts a change once, whether an event, a hinted pass, an answer or a poll found it', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 21));
    const state = memoryState();
    const rates = new PollRates(clock, state, logger);
    rates.passed(pass('p_1', 500, true));
    // Polling: an outbox answer makes the next poll one that found a change, though it wrote none.
    clock.stepTo(clock.now() + HOUR);
    rates.announced('p_1');
    rates.passed(pass('p_1', 0));
    await rates.save();
    const polled = state.rows.get('p_1')!.state as { buckets: { changed: number }[] };
    expect(polled.buckets.reduce((sum, b) => sum + b.changed, 0)).toBeCloseTo(1, 9);
    // Connected: the reconnect's pass is the gap's poll; then an event (1), a hinted pass that
    // wrote the hinted change (1), a reconcile that found one no event announced (1), and a
    // reconcile finding the mirror equal (0): three changes, counted once each.
    rates.connected(['p_1']);
    clock.stepTo(clock.now() + HOUR);
    rates.passed(pass('p_1', 0));
    clock.stepTo(clock.now() + HOUR);
    rates.announced('p_1');
    rates.hint(['p_1']);
    rates.passed(pass('p_1', 2));
    clock.stepTo(clock.now() + HOUR);
    rates.passed(pass('p_1', 1));
    clock.stepTo(clock.now() + HOUR);
    rates.passed(pass('p_1', 0));
    rates.disconnected();
    await rates.save();
    const counted = state.rows.get('p_1')!.state as { events: number; eventExposureMs: number };
    // Weighed as of the last (halving a day): a little under 3 changes over 3 hours.
    expect(counted.events).toBeGreaterThan(2.8);
    expect(counted.events).toBeLessThan(3);
    expect(counted.eventExposureMs).toBeGreaterThan(2.8 * HOUR);
    expect(counted.eventExposureMs).toBeLessThanOrEqual(3 * HOUR);
    // Only the reconciles after the hinted pass are looks for the unannounced estimate: one found
    // a change, one did not.
    const silent = state.rows.get('p_1#unannounced')!.state as {
      buckets: { polls: number; changed: number }[];
    };
    expect(silent.buckets.reduce((sum, b) => sum + b.polls, 0)).toBeCloseTo(2, 1);
    expect(silent.buckets.reduce((sum, b) => sum + b.changed, 0)).toBeCloseTo(1, 1);
  });

  it('learns both rates from events and reconciles on seeded streams, counting each change once', () => {
    const DAY = 24 * HOUR;
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 8, noNaN: true }),
        fc.double({ min: 0.3, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (announcedPerHour, silentPerHour, hintShare, seed) => {
          const random = seeded(seed);
          const clock = new FakeClock(Date.UTC(2026, 10, 21));
          const rates = new PollRates(clock, memoryState(), logger);
          rates.passed(pass('p_1', 500, true));
          rates.connected(['p_1']);
          const start = clock.now();
          const reconcileMs = HOUR / 4;
          let nextReconcile = start + reconcileMs;
          let silentWaiting = false;
          const exp = (perHour: number) => (-Math.log(1 - random()) / perHour) * HOUR;
          let nextAnnounced = start + exp(announcedPerHour);
          let nextSilent = start + exp(silentPerHour);
          // The instants at which the mirror first wrote a change (each counts once).
          const written: number[] = [];
          while (clock.now() < start + 6 * DAY) {
            const at = Math.min(nextAnnounced, nextSilent, nextReconcile);
            clock.stepTo(at);
            if (at === nextSilent) {
              silentWaiting = true;
              nextSilent = at + exp(silentPerHour);
            } else if (at === nextAnnounced) {
              if (random() < hintShare) {
                // A hint: the refresh pass writes the change (and a silent one waiting with it).
                rates.hint(['p_1']);
                rates.passed(pass('p_1', 1 + (silentWaiting ? 1 : 0)));
                silentWaiting = false;
              } else {
                rates.announced('p_1');
              }
              written.push(at);
              nextAnnounced = at + exp(announcedPerHour);
            } else {
              rates.passed(pass('p_1', silentWaiting ? 1 : 0));
              if (silentWaiting) written.push(at);
              silentWaiting = false;
              nextReconcile = at + reconcileMs;
            }
          }
          // What was written, weighed as the estimates weigh it (halving a day), over the time
          // connected: each change counted once gives this rate (the prior aside).
          const end = clock.now();
          const weight = (at: number) => 2 ** (-(end - at) / DAY);
          const changes = written.reduce((sum, at) => sum + weight(at), 0);
          const exposure = (DAY / Math.LN2) * (1 - weight(start));
          const counted = (changes / exposure) * HOUR;
          const total = rates.pooled(['p_1']).get('p_1')! * HOUR;
          expect(total / counted).toBeGreaterThan(0.93);
          expect(total / counted).toBeLessThan(1.07);
          // The unannounced rate, from the reconciles alone: against the true rate, so within the
          // noise of a few effective changes (0.3 an hour over a day and a half's weight is ten).
          const unannounced = rates.pooledUnannounced(['p_1']).get('p_1')! * HOUR;
          expect(unannounced / silentPerHour).toBeGreaterThan(0.4);
          expect(unannounced / silentPerHour).toBeLessThan(2);
        },
      ),
      { seed: 35, numRuns: 60 },
    );
  });
});

/** A seeded uniform source in [0, 1): the simulator's mulberry32. */
function seeded(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}
