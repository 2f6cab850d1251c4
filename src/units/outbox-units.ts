/**
 * The outbox's units of work, on the thread that owns the connection: each state change of an
 * item is one transaction (claim, done with the answer written into the mirror, failed,
 * requeued), so that a push's requests never wait on the database in the middle of one.
 */
import type { ProjectFence, WriteResponse } from '../domain/index.js';
import { answersInto } from '../outbox/apply.js';
import { dryRun, type DryRunStep } from '../outbox/dry-run.js';
import type { OutboxItem } from '../outbox/item.js';
import type { OnConflict } from '../outbox/send.js';
import { enqueue, type Enqueued, type EnqueueInput } from '../outbox/queue.js';
import { claimItem, markDone, markFailed, type Claim } from '../outbox/transitions.js';
import type { MirrorHandle } from '../store/handle.js';
import {
  OutboxRepository,
  type OutboxSummary,
  type Requeue as RequeueOptions,
} from '../store/outbox.js';
import { OutboxTargets } from '../store/outbox-targets.js';
import type { ClaimOptions } from '../store/port.js';
import { ProjectsRepository } from '../store/projects.js';
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
  claim(id: number, now: number, options: ClaimOptions = { onConflict: 'hold' }): Claim {
    const readOnly = (projectId: string) => this.projects.readOnlyReason(projectId);
    const targets = options.onConflict === 'hold' ? this.targets : undefined;
    return claimItem(this.outbox, id, now, readOnly, this.claims, targets);
  }

  /** Marks the item failed for good. */
  markFailed(item: OutboxItem, error: string, now: number): OutboxItem {
    return markFailed(this.outbox, item, error, now);
  }

  /** Marks the item done, its answer written into the mirror (`mirrored`) in one transaction. */
  markDone(
    item: OutboxItem,
    response: WriteResponse,
    now: number,
    mirrored: boolean,
  ): string | undefined {
    const apply = mirrored ? answersInto(this.mirror.writer) : undefined;
    return markDone(this.outbox, item, response, now, apply, this.targets);
  }

  /** Back to pending, due at once or later. */
  requeue(id: number, options: RequeueOptions, now: number): void {
    this.outbox.requeue(id, options, now);
  }

  /** Records the token an item goes out with. */
  setToken(id: number, label: string): void {
    this.outbox.setToken(id, label);
  }

  /** Items not yet done or failed, per project. */
  unfinishedByProject(): Array<[string, number]> {
    return [...this.outbox.unfinishedByProject()];
  }

  /** Items a previous run left `sending` go back to pending; how many. */
  recoverInterrupted(now: number): number {
    return this.outbox.recoverInterrupted(now);
  }

  /** Queues an edit (checked first); its id and idempotency key. */
  enqueue(input: EnqueueInput, now: number): Enqueued {
    return enqueue(this.handle, input, now);
  }

  /** The projects with an item not yet done or failed. */
  projectsWithItems(): string[] {
    return [...new Set(this.outbox.heads().map((item) => item.projectId))];
  }

  /** Every item, in queue order. */
  list(): OutboxItem[] {
    return this.outbox.list();
  }

  /** Counts by state, and the oldest pending item's age. */
  summary(now: number): OutboxSummary {
    return this.outbox.summary(now);
  }

  /** What a push would do with each unfinished item (`push --dry-run`); changes nothing. */
  dryRun(onConflict: OnConflict): DryRunStep[] {
    return dryRun({
      items: this.outbox.unfinished(),
      conflicts: this.outbox.list({ state: 'conflict' }),
      readOnlyReason: (projectId) => this.projects.readOnlyReason(projectId),
      target: (op, projectId, targetId) => this.targets.read(op, projectId, targetId),
      onConflict,
    });
  }

  /** The first item of each project's queue that is due. */
  heads(): OutboxItem[] {
    return this.outbox.heads();
  }
}
