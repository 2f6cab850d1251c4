/**
 * The daemon's start-up: the reconcile it begins with (recorded for `status`), and what it does
 * with the projects whose leases it takes over on a shared PostgreSQL mirror.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/index.js';
import type { OutboxPusher } from '../outbox/index.js';
import { isoTime } from '../store/database.js';
import { STATE_KEYS } from '../store/daemon-state.js';
import type { InFlight } from './in-flight.js';
import type { PagePolls } from './page-polls.js';
import type { Passes } from './passes.js';
import type { PollRates } from './poll-rates.js';
import type { StateNotes } from './state-notes.js';

/** What `status` shows of the start-up reconcile: when it began and ended. */
export interface StartupState {
  startedAt: string;
  finishedAt?: string;
  /** Projects whose pass failed in it (each then retried with backoff). */
  failed?: string[];
}

/** What the start-up works with. */
export interface StartupOptions {
  clock: Clock;
  logger: Logger;
  passes: Pick<Passes, 'reconcile' | 'syncProject'>;
  notes: Pick<StateNotes, 'save'>;
  rates: Pick<PollRates, 'adopt'>;
  /** The estimates of single pages and side lists, adopted with the projects'. */
  parts: Pick<PagePolls, 'adopt'>;
  pusher: Pick<OutboxPusher, 'wake'>;
  /**
   * Wakes the poll schedule, which sleeps towards its next poll without planning again: told
   * when a take-over's estimates are adopted and when each of its passes ends.
   */
  replan: () => void;
  inFlight: Pick<InFlight, 'track'>;
  /** The daemon's signal: a take-over after it is aborted does nothing. */
  signal: AbortSignal;
}

/** The start-up reconcile and lease take-overs; see the module comment. */
export class Startup {
  constructor(private readonly options: StartupOptions) {}

  /** The start-up reconcile, recorded for `status`. */
  async reconcile(signal: AbortSignal): Promise<void> {
    const { clock, notes } = this.options;
    const startedAt = isoTime(clock.now());
    await notes.save(STATE_KEYS.startup, { startedAt } satisfies StartupState, startedAt);
    const failed = await this.options.passes.reconcile(signal);
    if (signal.aborted) return;
    const finishedAt = isoTime(clock.now());
    const state: StartupState = { startedAt, finishedAt, failed };
    await notes.save(STATE_KEYS.startup, state, finishedAt);
    this.options.logger.info({ failed: failed.length }, 'start-up reconcile finished');
  }

  /** Projects whose lease this daemon took over: pass them now, and push their items. */
  takeOver(projectIds: readonly string[]): void {
    const { signal, passes, inFlight } = this.options;
    if (signal.aborted) return;
    this.options.logger.info({ projects: projectIds }, 'took over projects');
    // Their estimates as the daemon that held them kept them (the projects', their pages' and
    // side lists'), before this one's first look.
    const adopted = Promise.all([
      this.options.rates.adopt(projectIds),
      this.options.parts.adopt(projectIds),
    ]).then(() => this.options.replan());
    for (const projectId of projectIds) {
      const pass = adopted.then(() => passes.syncProject(projectId, signal, 'poll'));
      inFlight.track(pass.then(() => this.options.replan()));
    }
    this.options.pusher.wake();
  }
}
