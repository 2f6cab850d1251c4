/**
 * The mirror's units of work, on the thread that owns the connection: each method is one unit
 * (one transaction, or a read), taking and returning plain data, so that it can be sent as a
 * message. The writer and its per-record guards live here, beside the rows they compare; each
 * pass in flight is a group of units of its own (`StorePass`, owning its guard and tally); the
 * pass itself (requests, paging, retries) stays with the engine.
 */
import type { CheckedEvent, Clock, ProjectFence, RecordChange } from '../../domain/index.js';
import { MirrorWriter } from '../writer/writer.js';
import {
  applyPolledLists,
  applyPolledPage,
  type PagePollOutcome,
  type PolledLists,
  type PolledPage,
} from '../writer/page-poll.js';
import { isoTime } from '../database.js';
import type { MirrorHandle } from '../handle.js';
import { MirrorStore } from '../mirror-store.js';
import type { ApplyOutcome, EventOutcome, KeptHead } from '../port.js';
import { StorePass, type PassGroups, type PassOpened } from './pass-units.js';

/** The mirror's units over one connection. */
export class MirrorUnits {
  readonly store: MirrorStore;
  readonly writer: MirrorWriter;
  readonly clock: Clock;
  private readonly passes: PassGroups;

  constructor(mirror: MirrorHandle, clock: Clock, claims: ProjectFence, passes: PassGroups) {
    this.store = new MirrorStore(mirror);
    this.clock = clock;
    this.writer = new MirrorWriter(this.store, clock, claims);
    this.passes = passes;
  }

  /**
   * Begins a pass of `projectId`: its guard notes the writes meanwhile until it ends. The pass is
   * a group of units of its own, which its handle asks (`pass-handle.ts`).
   */
  async passBegin(projectId: string): Promise<PassOpened> {
    const { group, pass } = this.passes.open((close) => new StorePass(projectId, this, close));
    return await pass.opened(group);
  }

  /** A pass failed: recorded in its sync state; indexes a cold sync deferred are built. */
  async passFailed(projectId: string, error: string): Promise<void> {
    const { store } = this;
    await store.transaction(async () => {
      await store.syncState.passFailed(projectId, error, isoTime(this.clock.now()));
      await store.deferred.restore();
    });
  }

  /**
   * The ETag and row count of one kept page at `pageSize`, for a single-page poll; `busy` while a
   * pass of the project is in flight (it reads the page itself), so that no request is spent.
   */
  async keptHead(
    projectId: string,
    pageSize: number,
    page: number,
  ): Promise<KeptHead | 'busy' | undefined> {
    if (this.writer.guarding(projectId)) return 'busy';
    const heads = await this.store.taskPages.heads(projectId, pageSize);
    const head = heads.find((kept) => kept.page === page);
    return head === undefined ? undefined : { etag: head.etag, rowCount: head.rowCount };
  }

  /**
   * A single page a poll read (`page-poll.ts`): its changed rows written, or why a full pass is
   * due; `busy` while a pass of the project is in flight (its commit settles the page).
   */
  async pagePolled(polled: PolledPage): Promise<PagePollOutcome> {
    if (this.writer.guarding(polled.projectId)) return { kind: 'busy' };
    return await applyPolledPage(this.store, this.writer, polled, this.clock.now());
  }

  /** The project and its side lists a poll read, each list whole: true when something changed. */
  async listsPolled(polled: PolledLists): Promise<boolean> {
    return await applyPolledLists(this.writer, polled);
  }

  /** Writes what a realtime event says. */
  async applyEvent(event: CheckedEvent): Promise<ApplyOutcome> {
    return await this.writer.applyEvent(event);
  }

  /** Writes events that arrived together, in one transaction. */
  async applyEvents(events: readonly CheckedEvent[]): Promise<EventOutcome[]> {
    return await this.writer.applyEvents(events);
  }

  /** Writes records fetched from the service on a hint. */
  async applyFetched(
    projectId: string,
    changes: readonly RecordChange[],
    route: string,
  ): Promise<ApplyOutcome> {
    return await this.writer.applyChanges(projectId, changes, route);
  }

  /** Every mirrored project's id. */
  async projectIds(): Promise<string[]> {
    return await this.store.projects.ids();
  }

  /** Projects the mirror holds rows or bookkeeping of. */
  async knownProjectIds(): Promise<string[]> {
    const { store } = this;
    const states = await store.syncState.list();
    return [...new Set([...(await store.projects.ids()), ...states.map((s) => s.projectId)])];
  }

  /** The tasks the mirror holds for a project. */
  async taskCount(projectId: string): Promise<number> {
    return await this.store.tasks.count(projectId);
  }

  /** True when the mirror holds the project's record. */
  async hasProject(projectId: string): Promise<boolean> {
    return (await this.store.projects.data(projectId)) !== undefined;
  }

  /** Deletes a project with everything mirrored and kept for it. */
  async removeProject(projectId: string): Promise<void> {
    await this.writer.removeProject(projectId);
  }
}
