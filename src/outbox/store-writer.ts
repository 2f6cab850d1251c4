/**
 * The mirror write paths the outbox needs, and a stand-alone implementation over the store's
 * repositories for processes that run no pull engine (`projmirror push`). The daemon passes its
 * `Mirror` instead, which has the same methods and also tells a pass in flight about the write.
 */
import type { Clock, Dependency, Resource, Task } from '../domain/index.js';
import { isoTime } from '../store/database.js';
import type { MirrorStore } from '../store/mirror-store.js';
import { newTally, type WriteContext } from '../store/write-context.js';

/**
 * Writes records the service returned into the mirror, each call in its own transaction (nested
 * as a savepoint in the caller's), skipping projects the mirror does not hold. `Mirror` fits.
 */
export interface MirrorWriter {
  applyTask(projectId: string, task: Task): unknown;
  removeTask(projectId: string, taskId: string): unknown;
  replaceResources(projectId: string, resources: readonly Resource[]): unknown;
  replaceDependencies(projectId: string, dependencies: readonly Dependency[]): unknown;
}

/** True when `held` (the mirror's `updatedAt`) is later than `incoming`. */
function isNewer(held: string | null | undefined, incoming: unknown): boolean {
  if (typeof held !== 'string' || typeof incoming !== 'string') return false;
  const heldMs = Date.parse(held);
  const incomingMs = Date.parse(incoming);
  return Number.isFinite(heldMs) && Number.isFinite(incomingMs) && heldMs > incomingMs;
}

/** `MirrorWriter` straight over the repositories, recording history once a project has a baseline. */
export class StoreMirrorWriter implements MirrorWriter {
  private readonly store: MirrorStore;
  private readonly clock: Clock;

  constructor(store: MirrorStore, clock: Clock) {
    this.store = store;
    this.clock = clock;
  }

  /** Writes a task unless the mirror holds a later version of it. */
  applyTask(projectId: string, task: Task): boolean {
    return this.write(projectId, (context) => {
      if (isNewer(this.store.tasks.find(task.id)?.updatedAt, task.updatedAt)) return false;
      return this.store.tasks.put(projectId, task, JSON.stringify(task), context);
    });
  }

  /** Deletes a task, recording the deletion. */
  removeTask(projectId: string, taskId: string): boolean {
    return this.write(projectId, (context) => this.store.tasks.remove(projectId, taskId, context));
  }

  /** Makes the project's resources exactly `resources`. */
  replaceResources(projectId: string, resources: readonly Resource[]): boolean {
    return this.write(
      projectId,
      (context) => this.store.records.resources.replace(projectId, resources, context).length > 0,
    );
  }

  /** Makes the project's dependencies exactly `dependencies`. */
  replaceDependencies(projectId: string, dependencies: readonly Dependency[]): boolean {
    return this.write(
      projectId,
      (context) => this.store.records.dependencies.replace(projectId, dependencies, context).length > 0,
    );
  }

  private write(projectId: string, fn: (context: WriteContext) => boolean): boolean {
    const { store } = this;
    return store.transaction(() => {
      if (store.projects.data(projectId) === undefined) return false;
      const history = store.syncState.hasBaseline(projectId);
      const context = { at: isoTime(this.clock.now()), history, tally: newTally() };
      const changed = fn(context);
      if (changed) store.syncState.changed(projectId, context.at);
      return changed;
    });
  }
}
