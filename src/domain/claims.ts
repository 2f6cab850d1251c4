/**
 * Which projects this process may mirror and push. One daemon on a SQLite file owns them all;
 * daemons sharing a PostgreSQL mirror each hold some, by lease (`src/store/thread/leases.ts`, which
 * runs where the connection is; the engines see it through `Leases`).
 */
import { ProjmirrorError } from './errors.js';

/** What a write transaction checks: who writes, and that it still holds the project. */
export interface ProjectFence {
  /** Who holds the claims, as outbox rows record it (`claimed_by`); undefined for a sole owner. */
  readonly holder: string | undefined;
  /**
   * Inside a write transaction that changes `projectId`'s rows: throws `NotHeldError` unless
   * this process still holds it, which then holds until the transaction ends.
   */
  fence(projectId: string): Promise<void>;
}

/** The projects this process may write, asked by the mirror, the daemon and the pusher. */
export interface ProjectClaims {
  /** Who holds the claims; undefined for a sole owner. */
  readonly holder: string | undefined;
  /** True while this process mirrors `projectId` (and pushes its outbox items), as last learned. */
  mine(projectId: string): boolean;
  /**
   * After a listing, the projects the tokens see: takes those it can, and returns the ones this
   * process mirrors now. `complete` is false when one of several tokens failed to list.
   */
  listed(projectIds: readonly string[], complete?: boolean): Promise<string[]>;
  /** Of the mirrored projects no longer listed, those that may be deleted (no one else sees them). */
  removable(projectIds: readonly string[]): Promise<string[]>;
}

/** The leases of a daemon on a shared PostgreSQL mirror, as the engines hold them. */
export interface Leases extends ProjectClaims {
  readonly holder: string;
  /** How long a lease lasts unless renewed, in ms. */
  readonly leaseMs: number;
  /** Told the projects whose leases a heartbeat took over (their previous holder is gone). */
  onAcquired(listener: (projectIds: string[]) => void): void;
  /**
   * Told after a heartbeat that may have changed what `mine` answers (a lease renewed after a
   * stall, one lost): every heartbeat on the caller's thread, and every change of the copy a
   * store thread's leases send. What waited for a project to be this daemon's again goes on.
   */
  onRenewed(listener: () => void): void;
  /** Tells the other daemons what this one lists (a daemon that will run, not a one-shot). */
  advertise(): Promise<void>;
  /** Takes the free leases of `projectIds`; returns those held now. */
  claim(projectIds: readonly string[]): Promise<string[]>;
  /** Gives every lease back. */
  stop(): Promise<void>;
}

/** The project is mirrored by another process (its lease is not, or no longer, ours). */
export class NotHeldError extends ProjmirrorError {
  constructor(projectId: string) {
    super('not_held', `project ${projectId} is mirrored by another daemon`);
  }
}

/** A sole owner: every project is this process's (one daemon on its own mirror). */
export const SOLE_OWNER: ProjectClaims & ProjectFence = {
  holder: undefined,
  mine: () => true,
  fence: () => Promise.resolve(),
  listed: (projectIds) => Promise.resolve([...projectIds]),
  removable: (projectIds) => Promise.resolve([...projectIds]),
};
