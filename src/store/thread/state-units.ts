/** The daemon's own bookkeeping (budgets, plan, start-up, the readers' time zone) as units. */
import { ChangeRateRepository, type ChangeRateRow } from '../change-rates.js';
import { DaemonStateRepository } from '../daemon-state.js';
import type { MirrorHandle } from '../handle.js';
import { recordTimeZone } from '../timezone.js';

/** `daemon_state` over one connection. */
export class StateUnits {
  private readonly state: DaemonStateRepository;
  private readonly rates: ChangeRateRepository;
  private readonly mirror: MirrorHandle;

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
    this.state = new DaemonStateRepository(mirror);
    this.rates = new ChangeRateRepository(mirror);
  }

  /** Every polled item's kept change-rate evidence. */
  changeRates(): Promise<ChangeRateRow[]> {
    return this.rates.all();
  }

  /** Keeps the items' change-rate evidence, stamped `at`. */
  saveChangeRates(rows: ChangeRateRow[], at: string): Promise<void> {
    return this.rates.save(rows, at);
  }

  /** Forgets the change-rate evidence of `keys`. */
  deleteChangeRates(keys: string[]): Promise<void> {
    return this.rates.delete(keys);
  }

  /** The value saved under `key`, if any. */
  get(key: string): Promise<unknown> {
    return this.state.get(key);
  }

  /** Saves `value` under `key`, stamped `at`. */
  set(key: string, value: unknown, at: string): Promise<void> {
    return this.state.set(key, value, at);
  }

  /** Forgets `key`. */
  delete(key: string): Promise<void> {
    return this.state.delete(key);
  }

  /** Records the zone readers of the mirror take "today" from; true when it changed. */
  recordTimeZone(zone: string, nowMs: number): Promise<boolean> {
    return recordTimeZone(this.mirror, zone, nowMs);
  }
}
