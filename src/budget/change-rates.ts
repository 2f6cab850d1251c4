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
  observeEvents,
  observePoll,
  type ChangeRateOptions,
  type ChangeRateState,
} from './change-rate.js';

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
  load(kept: readonly KeptChangeRate[]): void {
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
