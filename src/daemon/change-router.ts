/**
 * Where what the realtime channel says goes: an event into the mirror (unless another daemon
 * holds its project), a refresh within the caps, a change of an unknown project into a hint.
 * What could not be written is handed to `MissedWork`.
 */
import type { PollRates } from './poll-rates.js';
import type { Logger } from 'pino';
import {
  MalformedResponseError,
  type Clock,
  type ProjectClaims,
  type RealtimeEvent,
} from '../domain/index.js';
import type { Change, RefreshRequest } from '../realtime/index.js';
import { isoTime } from '../store/database.js';
import { answeredByPasses, type ChangeApplier } from './changes.js';
import type { Freshness } from './freshness.js';
import type { InFlight } from './in-flight.js';
import type { PlanFacts } from './plan-facts.js';
import type { MissedWork } from './missed.js';
import type { PollScheduler } from './poll-scheduler.js';
import { EVERY_PROJECT, type RefreshLimiter } from './refresh-limiter.js';

/** What the router sends changes to. */
export interface ChangeRouterOptions {
  clock: Clock;
  logger: Logger;
  /** The daemon's signal, which every refresh runs under. */
  signal: AbortSignal;
  /** Mirror only these projects (default: every project the tokens list). */
  projects: readonly string[] | undefined;
  claims: ProjectClaims;
  /** True when the mirror holds `projectId`. */
  hasProject: (projectId: string) => Promise<boolean>;
  applier: Pick<ChangeApplier, 'applyEvent' | 'refresh'>;
  /** The coalescer, which collapses hints into refreshes. */
  hints: { push(change: Change): void };
  scheduler: Pick<PollScheduler, 'dueAt'>;
  freshness: Pick<Freshness, 'stale'>;
  missed: Pick<MissedWork, 'missed'>;
  limiter: Pick<RefreshLimiter, 'take'>;
  facts: Pick<PlanFacts, 'ids'>;
  inFlight: Pick<InFlight, 'track'>;
  /** Told of hints a pass answers: such a pass is no look for changes no event announced. */
  rates: Pick<PollRates, 'hint'>;
}

/** Routes realtime changes; see the module comment. */
export class ChangeRouter {
  constructor(private readonly options: ChangeRouterOptions) {}

  /** A change heard on the realtime channel: a hint makes its project stale at once. */
  heard(change: Change): void {
    if (change.kind === 'hint') this.options.freshness.stale(change.projectId);
    this.options.hints.push(change);
  }

  /** An event the coalescer let through: written into the mirror, tracked until done. */
  event(event: RealtimeEvent): void {
    this.options.inFlight.track(this.applyEvent(event));
  }

  /** An event named a project the mirror does not hold: a hint for it, when it is asked for. */
  unknownProject(projectId: string): void {
    const { projects } = this.options;
    if (projects && !projects.includes(projectId)) return;
    this.options.hints.push({ kind: 'hint', projectId, reason: 'a project not mirrored yet' });
  }

  /**
   * Runs a refresh the realtime channel asked for, within the refresh caps
   * (`refresh-limiter.ts`): past its cap a project is instead made due once when its slot frees.
   * A reconcile after a reconnect is never capped.
   */
  refresh(request: RefreshRequest): void {
    const { facts, scheduler, logger } = this.options;
    if (answeredByPasses(request)) {
      this.options.rates.hint(request.scope === 'all' ? facts.ids() : [request.projectId]);
    }
    if (request.scope !== 'all' || request.reason !== 'reconnected') {
      const key = request.scope === 'all' ? EVERY_PROJECT : request.projectId;
      const hinted = request.scope === 'all' || (request.scope === 'project' && request.hinted);
      const allowed = this.options.limiter.take(key, hinted ? 'hint' : 'event');
      if (allowed !== true) {
        const ids = request.scope === 'all' ? facts.ids() : [request.projectId];
        for (const id of ids) scheduler.dueAt(id, allowed);
        logger.info({ projectId: key, at: isoTime(allowed) }, 'refresh deferred: cap');
        return;
      }
    }
    const projectIds = request.scope === 'all' ? facts.ids() : [request.projectId];
    this.options.inFlight.track(
      this.options.applier.refresh(request, this.options.signal).catch((error: unknown) => {
        // A pass records its own outcome (the poll schedule retries it); a fetched task or
        // list that could not be read or written makes its project due.
        if (!answeredByPasses(request)) this.options.missed.missed(projectIds, error);
        throw error;
      }),
    );
  }

  /**
   * Writes an event into the mirror, unless another daemon holds its project (a shared
   * PostgreSQL mirror). An event that does not check becomes a hint; one the store could not
   * take (a lock held too long, the database away) makes its project due for a pass as soon as
   * the store answers again, so that nothing it said is lost.
   */
  private async applyEvent(event: RealtimeEvent): Promise<void> {
    const { claims, clock, scheduler } = this.options;
    try {
      if (!claims.mine(event.projectId) && (await this.options.hasProject(event.projectId))) {
        // Another daemon's, or ours with a lease not renewed while the database was away: a
        // pass settles it (skipped at once when the project is truly held elsewhere).
        scheduler.dueAt(event.projectId, clock.now());
        return;
      }
      await this.options.applier.applyEvent(event);
    } catch (error) {
      if (error instanceof MalformedResponseError) {
        this.options.freshness.stale(event.projectId);
        this.options.hints.push({ kind: 'hint', projectId: event.projectId, reason: 'bad data' });
      } else {
        this.options.missed.missed([event.projectId], error);
      }
    }
  }
}
