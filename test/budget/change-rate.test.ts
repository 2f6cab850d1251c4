import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyChangeRate,
  estimateRate,
  isChangeRateState,
  observeEvents,
  observePoll,
  type ChangeRateOptions,
  type ChangeRateState,
} from '../../src/budget/change-rate.js';
import { ChangeRates } from '../../src/budget/change-rates.js';
import { FakeClock } from '../fixtures/clock.js';
import { Prng } from '../../src/sim/model/prng.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NO_PRIOR: ChangeRateOptions = { priorChanges: 0, priorExposureMs: 0, halfLifeMs: Infinity };

/** A seeded uniform source in [0, 1): the simulator's mulberry32. */
function seeded(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

/** Polls a Poisson item of `rate` per ms at the given intervals; returns the state. */
function pollStream(
  rate: number,
  intervals: readonly number[],
  random: () => number,
  options: ChangeRateOptions,
): { state: ChangeRateState; at: number } {
  let state = emptyChangeRate(0);
  let at = 0;
  for (const intervalMs of intervals) {
    at += intervalMs;
    const changed = random() < -Math.expm1(-rate * intervalMs);
    state = observePoll(state, { at, intervalMs, changed }, options);
  }
  return { state, at };
}

describe('estimateRate', () => {
  it("is Cho and Garcia-Molina's improved estimator at one regular interval without a prior", () => {
    let state = emptyChangeRate(0);
    const interval = HOUR;
    const outcomes = [true, false, true, true, false, false, false, true, false, false];
    outcomes.forEach((changed, i) => {
      state = observePoll(
        state,
        { at: (i + 1) * interval, intervalMs: interval, changed },
        NO_PRIOR,
      );
    });
    const n = outcomes.length;
    const x = outcomes.filter(Boolean).length;
    const cho = -Math.log((n - x + 0.5) / (n + 0.5)) / interval;
    expect(estimateRate(state, n * interval, NO_PRIOR) / cho).toBeCloseTo(1, 9);
  });

  it('stays finite when every poll found a change, and is 0 when none did without a prior', () => {
    let changedAll = emptyChangeRate(0);
    let changedNone = emptyChangeRate(0);
    for (let i = 1; i <= 5; i += 1) {
      changedAll = observePoll(
        changedAll,
        { at: i * HOUR, intervalMs: HOUR, changed: true },
        NO_PRIOR,
      );
      changedNone = observePoll(
        changedNone,
        { at: i * HOUR, intervalMs: HOUR, changed: false },
        NO_PRIOR,
      );
    }
    const all = estimateRate(changedAll, 5 * HOUR, NO_PRIOR);
    expect(all * HOUR).toBeCloseTo(Math.log(5.5 / 0.5), 9);
    expect(estimateRate(changedNone, 5 * HOUR, NO_PRIOR)).toBe(0);
  });

  it("is the prior's rate before any evidence", () => {
    const rate = estimateRate(emptyChangeRate(0), 0, { priorChanges: 2, priorExposureMs: DAY });
    expect(rate * DAY).toBeCloseTo(2, 9);
  });

  it('converges on seeded Poisson streams at irregular intervals (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        // Changes a day: from one every other day to 200 a day.
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        // The poll intervals' spread: regular (1) to a factor of 8 between shortest and longest.
        fc.double({ min: 1, max: 8, noNaN: true }),
        (seed, perDay, spread) => {
          const random = seeded(seed);
          const rate = perDay / DAY;
          // Intervals around the rate's mean gap, so that polls neither always nor never see one.
          const base = 0.5 / rate;
          const intervals = Array.from({ length: 4_000 }, () => base * spread ** (random() - 0.5));
          const options = { halfLifeMs: Infinity };
          const { state, at } = pollStream(rate, intervals, random, options);
          const estimate = estimateRate(state, at, options);
          expect(Math.abs(estimate / rate - 1)).toBeLessThan(0.12);
        },
      ),
      { seed: 35, numRuns: 60 },
    );
  });

  it('converges on exact events (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 5, max: 500, noNaN: true }),
        (seed, perDay) => {
          const random = seeded(seed);
          const rate = perDay / DAY;
          let state = emptyChangeRate(0);
          let at = 0;
          // Sixty days of hourly windows, each counting its Poisson changes exactly.
          const options = { halfLifeMs: Infinity };
          for (let hour = 0; hour < 60 * 24; hour += 1) {
            let count = 0;
            let t = -Math.log(1 - random()) / rate;
            while (t < HOUR) {
              count += 1;
              t += -Math.log(1 - random()) / rate;
            }
            at += HOUR;
            state = observeEvents(state, { at, count, exposureMs: HOUR }, options);
          }
          expect(Math.abs(estimateRate(state, at, options) / rate - 1)).toBeLessThan(0.2);
        },
      ),
      { seed: 36, numRuns: 40 },
    );
  });

  it('notices a project that goes quiet, and one that wakes up, within a few half-lives', () => {
    const random = seeded(7);
    const busy = 30 / DAY;
    const hourly = Array.from({ length: 7 * 24 }, () => HOUR);
    const { state: learned, at } = pollStream(busy, hourly, random, {});
    expect(estimateRate(learned, at, {}) * DAY).toBeGreaterThan(20);
    let quiet = learned;
    for (let i = 1; i <= 3 * 24; i += 1) {
      quiet = observePoll(quiet, { at: at + i * HOUR, intervalMs: HOUR, changed: false }, {});
    }
    expect(estimateRate(quiet, at + 3 * DAY, {}) * DAY).toBeLessThan(5);
    let awake = quiet;
    // It wakes at about 22 changes a day (six polls in ten find one): two half-lives later it shows.
    for (let i = 1; i <= 48; i += 1) {
      const t = at + 3 * DAY + i * HOUR;
      awake = observePoll(awake, { at: t, intervalMs: HOUR, changed: random() < 0.6 }, {});
    }
    expect(estimateRate(awake, at + 5 * DAY, {}) * DAY).toBeGreaterThan(8);
  });

  it('round-trips through JSON, and refuses a malformed state', () => {
    const { state } = pollStream(10 / DAY, [HOUR, 2 * HOUR, HOUR], seeded(1), {});
    const back: unknown = JSON.parse(JSON.stringify(state));
    expect(isChangeRateState(back)).toBe(true);
    expect(back).toEqual(state);
    expect(isChangeRateState({ ...state, events: -1 })).toBe(false);
    expect(
      isChangeRateState({ ...state, buckets: [{ key: 1.5, polls: 1, changed: 0, intervalMs: 1 }] }),
    ).toBe(false);
    expect(isChangeRateState(null)).toBe(false);
  });
});

describe('ChangeRates', () => {
  it('takes intervals from the clock, and a loaded copy estimates the same', () => {
    const clock = new FakeClock(0);
    const rates = new ChangeRates(clock);
    rates.observePoll('p_1', false);
    for (let i = 0; i < 10; i += 1) {
      clock.stepTo(clock.now() + HOUR);
      rates.observePoll('p_1', i % 3 === 0);
    }
    expect(rates.rate('p_1')).toBeGreaterThan(rates.rate('p_unknown'));
    const restarted = new ChangeRates(clock);
    restarted.load(JSON.parse(JSON.stringify(rates.kept())) as ReturnType<ChangeRates['kept']>);
    expect(restarted.rate('p_1')).toBe(rates.rate('p_1'));
    // The next poll's interval runs from the last look before the restart.
    clock.stepTo(clock.now() + HOUR);
    rates.observePoll('p_1', true);
    restarted.observePoll('p_1', true);
    expect(restarted.rate('p_1')).toBe(rates.rate('p_1'));
    restarted.retain((key) => key !== 'p_1');
    expect(restarted.kept()).toEqual([]);
  });

  it('plans an item watched less than four hours at no less than the mean rate', () => {
    const clock = new FakeClock(0);
    const rates = new ChangeRates(clock);
    for (const key of ['busy', 'new']) rates.looked(key);
    // busy: a change found every half hour for a day.
    for (let at = HOUR / 2; at <= DAY; at += HOUR / 2) {
      clock.stepTo(at);
      rates.observePoll('busy', true);
      // new: looked at only now and then, and found nothing.
      if (at === DAY - HOUR) rates.looked('new');
    }
    clock.stepTo(DAY + HOUR / 4);
    rates.observePoll('new', false);
    const early = rates.pooledRates(['busy', 'new']);
    const mean = (rates.rate('busy') + rates.rate('new')) / 2;
    // Fifteen quiet minutes say little: it is planned as a busy one might be, where without the
    // rule (no evidence needed) it would fall at once.
    expect(early.get('new')).toBeGreaterThanOrEqual(mean);
    expect(rates.pooledRates(['busy', 'new'], undefined, 0).get('new')!).toBeLessThan(mean / 2);
    // Four more hours of quiet polls are evidence enough to let it fall.
    for (let i = 1; i <= 16; i += 1) {
      clock.stepTo(DAY + HOUR / 4 + (i * HOUR) / 4);
      rates.observePoll('new', false);
    }
    const later = rates.pooledRates(['busy', 'new']);
    expect(later.get('new')!).toBeLessThan(later.get('busy')! / 10);
  });
});
