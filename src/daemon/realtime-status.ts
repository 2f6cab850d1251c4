/** Whether the realtime channel is connected, and what changes when it connects or drops. */
import type { Clock } from '../domain/index.js';
import type { Freshness } from './freshness.js';
import type { PlanFacts } from './plan-facts.js';
import type { PollRates } from './poll-rates.js';
import type { PollScheduler } from './poll-scheduler.js';

/** What a change of the channel's state is told to. */
export interface RealtimeStatusOptions {
  clock: Clock;
  freshness: Pick<Freshness, 'connected' | 'disconnected'>;
  /** The change rates, which count changes exactly while connected. */
  rates: Pick<PollRates, 'connected' | 'disconnected'>;
  facts: Pick<PlanFacts, 'ids'>;
  /** The poll schedule, replanned since the plan polls less while the channel is up. */
  scheduler: Pick<PollScheduler, 'replan'>;
  /** Told whenever realtime connects or disconnects. */
  onStatus?: ((connected: boolean) => void) | undefined;
}

/** The realtime channel's state; see the module comment. */
export class RealtimeStatus {
  private up = false;

  constructor(private readonly options: RealtimeStatusOptions) {}

  /** True while the realtime channel is connected. */
  get connected(): boolean {
    return this.up;
  }

  /** The channel connected or dropped. */
  set(connected: boolean): void {
    if (connected === this.up) return;
    this.up = connected;
    if (connected) this.options.freshness.connected(this.options.clock.now());
    else this.options.freshness.disconnected();
    if (connected) this.options.rates.connected(this.options.facts.ids());
    else this.options.rates.disconnected();
    this.options.onStatus?.(connected);
    this.options.scheduler.replan();
  }
}
