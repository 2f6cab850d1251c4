/**
 * The daemon's change-rate estimates over an in-memory `change_rates`: passes observed once each,
 * a backfill only starting the clock, what is saved loaded again, and a project taken over from
 * another daemon adopting that daemon's estimate.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PollRates } from '../../src/daemon/poll-rates.js';
import type { ProjectSyncResult } from '../../src/mirror/index.js';
import type { ChangeRateRow } from '../../src/store/change-rates.js';
import type { StatePort } from '../../src/store/port.js';
import { FakeClock } from '../fixtures/clock.js';

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
    expect([...state.rows.keys()].sort()).toEqual(['p_1', 'p_2']);
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
    expect([...state.rows.keys()]).toEqual(['p_2']);
  });
});
