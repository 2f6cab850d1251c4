/**
 * The outbox's units of work, on the thread that owns the connection: each state change of an
 * item is one transaction (claim, done with the answer written into the mirror, failed,
 * requeued), so that a push's requests never wait on the database in the middle of one.
 */
import type { ProjectFence, WriteResponse } from '../../domain/index.js';
import { answersInto } from '../outbox-queue/apply.js';
import { dryRun, type DryRunStep } from '../outbox-queue/dry-run.js';
import type { OutboxItem, OutboxState } from '../outbox.js';
import {
  dropOutboxItem,
  enqueue,
  resolveOutboxItem,
  retryOutboxItem,
  type Enqueued,
  type EnqueueInput,
  type Resolution,
} from '../outbox-queue/queue.js';
import { claimItem, markDone, markFailed, type Claim } from '../outbox-queue/transitions.js';
import type { MirrorHandle } from '../handle.js';
import { OutboxRepository, type OutboxSummary, type Requeue as RequeueOptions } from '../outbox.js';
import { OutboxTargets } from '../outbox-targets.js';
import type { ClaimOptions, OnConflict } from '../port.js';
import { ProjectsRepository } from '../projects.js';
import type { MirrorUnits } from './mirror-units.js';

/** The outbox's units over one connection; answers are written by the mirror's one writer. */
export class OutboxUnits {
  private readonly outbox: OutboxRepository;
  private readonly projects: ProjectsRepository;
  private readonly claims: ProjectFence;
  private readonly mirror: MirrorUnits;
  private readonly handle: MirrorHandle;
  private readonly targets: OutboxTargets;

  constructor(handle: MirrorHandle, claims: ProjectFence, mirror: MirrorUnits) {
    this.handle = handle;
    this.outbox = new OutboxRepository(handle, claims.holder);
    this.projects = new ProjectsRepository(handle);
    this.claims = claims;
    this.mirror = mirror;
    this.targets = new OutboxTargets(handle);
  }

  /** Pending → sending, with its request fixed; or failed or conflict without a request; or gone. */
  async claim(
    id: number,
    now: number,
    options: ClaimOptions = { onConflict: 'hold' },
  ): Promise<Claim> {
    const readOnly = (projectId: string) => this.projects.readOnlyReason(projectId);
    const targets = options.onConflict === 'hold' ? this.targets : undefined;
    return await claimItem(this.outbox, id, now, readOnly, this.claims, targets);
  }

  /** Marks the item failed for good. */
  async markFailed(item: OutboxItem, error: string, now: number): Promise<OutboxItem> {
    return await markFailed(this.outbox, item, error, now);
  }

  /** Marks the item done, its answer written into the mirror (`mirrored`) in one transaction. */
  async markDone(
    item: OutboxItem,
    response: WriteResponse,
    now: number,
    mirrored: boolean,
  ): Promise<string | undefined> {
    const apply = mirrored ? answersInto(this.mirror.writer) : undefined;
    return await markDone(this.outbox, item, response, now, apply, this.targets);
  }

  /** Back to pending, due at once or later. */
  async requeue(id: number, options: RequeueOptions, now: number): Promise<void> {
    await this.outbox.requeue(id, options, now);
  }

  /** Records the token an item goes out with. */
  async setToken(id: number, label: string): Promise<void> {
    await this.outbox.setToken(id, label);
  }

  /** Items not yet done or failed, per project. */
  async unfinishedByProject(): Promise<Array<[string, number]>> {
    return [...(await this.outbox.unfinishedByProject())];
  }

  /** Items a previous run left `sending` go back to pending; how many. */
  async recoverInterrupted(now: number): Promise<number> {
    return await this.outbox.recoverInterrupted(now);
  }

  /** Queues an edit (checked first); its id and idempotency key. */
  async enqueue(input: EnqueueInput, now: number): Promise<Enqueued> {
    return await enqueue(this.handle, input, now);
  }

  /** The projects with an item not yet done or failed. */
  async projectsWithItems(): Promise<string[]> {
    return [...new Set((await this.outbox.heads()).map((item) => item.projectId))];
  }

  /** Every item (or those in `state`), in queue order. */
  async list(state?: OutboxState): Promise<OutboxItem[]> {
    return await this.outbox.list(state === undefined ? {} : { state });
  }

  /** A failed item back in the queue, or a pending one in backoff due now (`outbox retry`). */
  async retry(id: number, now: number): Promise<void> {
    await retryOutboxItem(this.handle, id, now);
  }

  /** Removes a pending or failed item (`outbox drop`). */
  async drop(id: number): Promise<void> {
    await dropOutboxItem(this.handle, id);
  }

  /** Resolves an item in conflict (`outbox resolve`); the line that says how. */
  async resolve(id: number, resolution: Resolution, now: number): Promise<string> {
    return await resolveOutboxItem(this.handle, id, resolution, now);
  }

  /** Counts by state, and the oldest pending item's age. */
  async summary(now: number): Promise<OutboxSummary> {
    return await this.outbox.summary(now);
  }

  /** What a push would do with each unfinished item (`push --dry-run`); changes nothing. */
  async dryRun(onConflict: OnConflict): Promise<DryRunStep[]> {
    return await dryRun({
      items: await this.outbox.unfinished(),
      conflicts: await this.outbox.list({ state: 'conflict' }),
      readOnlyReason: (projectId) => this.projects.readOnlyReason(projectId),
      target: (op, projectId, targetId) => this.targets.read(op, projectId, targetId),
      onConflict,
    });
  }

  /** The first item of each project's queue that is due. */
  async heads(): Promise<OutboxItem[]> {
    return await this.outbox.heads();
  }
}
