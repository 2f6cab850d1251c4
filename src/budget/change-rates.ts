/**
 * The change rates of many items (projects, pages, side lists, by a key the caller chooses), on
 * the injected clock: each poll's interval is the time since the item was last looked at, and the
 * states can be saved and loaded as JSON so that a restart keeps them.
 */
import type { Clock } from '../domain/index.js';
import {
  emptyChangeRate,
  estimateRate,
  isChangeRateState,
  decayTo,
  observeEvents,
  observePoll,
  type ChangeRateOptions,
  type ChangeRateState,
} from './change-rate.js';

/**
 * How much the items' common rate weighs in each one's estimate (`pooledRates`): like an hour of
 * evidence. Chosen on benchmark 10 (docs/budget.md): without pooling, days of equal projects came
 * out 11% worse than even polling from the prior; two hours did no better within the noise of
 * its days, and more slows the learning of a skewed day.
 */
export const DEFAULT_POOLED_EXPOSURE_MS = 3_600_000;

/**
 * An item watched for less than this (the time its polls covered, and its events') is planned at
 * no less than the items' mean rate (`pooledRates`): a few quiet polls are too little evidence to
 * let it wait up to the bound. Chosen on benchmark 10's model of 6b's day (docs/budget.md).
 */
export const DEFAULT_MIN_EVIDENCE_MS = 4 * 3_600_000;

/** One item's state as kept: the evidence and when the item was last looked at. */
export interface KeptChangeRate {
  key: string;
  state: ChangeRateState;
  /** The last poll (or event window's end): the start of the next poll's interval. */
  lookedAt: number | undefined;
}

/** Change-rate estimates of several items. */
export class ChangeRates {
  private readonly clock: Pick<Clock, 'now'>;
  private readonly options: ChangeRateOptions;
  private readonly items = new Map<string, { state: ChangeRateState; lookedAt?: number }>();

  constructor(clock: Pick<Clock, 'now'>, options: ChangeRateOptions = {}) {
    this.clock = clock;
    this.options = options;
  }

  /** Adopts kept states (from the mirror); a malformed one is dropped, the item starts afresh. */
  load(kept: readonly (Omit<KeptChangeRate, 'state'> & { state: unknown })[]): void {
    for (const item of kept) {
      if (!isChangeRateState(item.state)) continue;
      this.items.set(item.key, {
        state: item.state,
        ...(item.lookedAt === undefined ? {} : { lookedAt: item.lookedAt }),
      });
    }
  }

  /** Records a poll of `key` now that found a change or not; the first look only starts the clock. */
  observePoll(key: string, changed: boolean): void {
    const now = this.clock.now();
    const item = this.item(key, now);
    if (item.lookedAt !== undefined && now > item.lookedAt) {
      item.state = observePoll(
        item.state,
        { at: now, intervalMs: now - item.lookedAt, changed },
        this.options,
      );
    }
    item.lookedAt = now;
  }

  /** Notes that `key` was looked at now without a poll's evidence (a first full read). */
  looked(key: string): void {
    const now = this.clock.now();
    this.item(key, now).lookedAt = now;
  }

  /** Records `count` changes of `key` known exactly, counted over the last `exposureMs`. */
  observeEvents(key: string, count: number, exposureMs: number): void {
    const now = this.clock.now();
    const item = this.item(key, now);
    item.state = observeEvents(item.state, { at: now, count, exposureMs }, this.options);
  }

  /** The estimated rate of `key`, per millisecond (the prior's for an unknown item). */
  rate(key: string): number {
    const now = this.clock.now();
    return estimateRate(this.items.get(key)?.state ?? emptyChangeRate(now), now, this.options);
  }

  /**
   * The rates of `keys`, each shrunk toward their common mean (empirical Bayes): the prior of each
   * item becomes the mean of the items' own estimates, with the weight of `pooledExposureMs` of
   * evidence. Early on, or for items alike, this keeps the noise of a few polls from scattering the
   * intervals; with a day of evidence, an item's own polls dominate. An item watched for less than
   * `minEvidenceMs` is planned at no less than the items' mean rate.
   */
  pooledRates(
    keys: readonly string[],
    pooledExposureMs = DEFAULT_POOLED_EXPOSURE_MS,
    minEvidenceMs = DEFAULT_MIN_EVIDENCE_MS,
  ): Map<string, number> {
    const own = keys.map((key) => this.rate(key));
    // The geometric mean: rates spread over orders of magnitude, and the hottest items would
    // otherwise set the prior of all the others.
    const mean =
      own.length > 0 && own.every((rate) => rate > 0)
        ? Math.exp(own.reduce((sum, rate) => sum + Math.log(rate), 0) / own.length)
        : 0;
    if (!(pooledExposureMs > 0) || !(mean > 0))
      return new Map(keys.map((key, i) => [key, own[i]!]));
    const now = this.clock.now();
    const options = {
      ...this.options,
      priorChanges: mean * pooledExposureMs,
      priorExposureMs: pooledExposureMs,
    };
    // The arithmetic mean here: an item barely watched is as likely as any to be a busy one.
    const floor = own.reduce((sum, rate) => sum + rate, 0) / own.length;
    return new Map(
      keys.map((key) => {
        const state = decayTo(
          this.items.get(key)?.state ?? emptyChangeRate(now),
          now,
          this.options,
        );
        const rate = estimateRate(state, now, options);
        return [key, watchedMs(state) < minEvidenceMs ? Math.max(rate, floor) : rate];
      }),
    );
  }

  /** Forgets items `keep` refuses (projects gone from the mirror). */
  retain(keep: (key: string) => boolean): void {
    for (const key of [...this.items.keys()]) if (!keep(key)) this.items.delete(key);
  }

  /** Every item's state, to keep. */
  kept(): KeptChangeRate[] {
    return [...this.items].map(([key, item]) => ({
      key,
      state: item.state,
      lookedAt: item.lookedAt,
    }));
  }

  /** One item's state, to keep. */
  keptOne(key: string): KeptChangeRate | undefined {
    const item = this.items.get(key);
    return item && { key, state: item.state, lookedAt: item.lookedAt };
  }

  private item(key: string, now: number): { state: ChangeRateState; lookedAt?: number } {
    let item = this.items.get(key);
    if (!item) {
      item = { state: emptyChangeRate(now) };
      this.items.set(key, item);
    }
    return item;
  }
}

/** How long an item has been watched, decayed: the time its polls covered, and its events'. */
function watchedMs(state: ChangeRateState): number {
  return state.buckets.reduce((sum, bucket) => sum + bucket.intervalMs, 0) + state.eventExposureMs;
}
