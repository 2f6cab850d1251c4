/**
 * Which projects this process may mirror and push. One daemon on a SQLite file owns them all;
 * daemons sharing a PostgreSQL mirror each hold some, by lease (`src/daemon/leases.ts`).
 */
import { ProjmirrorError } from './errors.js';

/** The projects this process may write, asked by the mirror, its writer and the pusher. */
export interface ProjectClaims {
  /** Who holds the claims, as outbox rows record it (`claimed_by`); undefined for a sole owner. */
  readonly holder: string | undefined;
  /** True while this process mirrors `projectId` (and pushes its outbox items). */
  mine(projectId: string): boolean;
  /**
   * Inside a write transaction that changes `projectId`'s rows: throws `NotHeldError` unless
   * this process still holds it, which then holds until the transaction ends.
   */
  fence(projectId: string): void;
  /**
   * After a listing, the projects the tokens see: takes those it can, and returns the ones this
   * process mirrors now. `complete` is false when one of several tokens failed to list.
   */
  listed(projectIds: readonly string[], complete?: boolean): string[];
  /** Of the mirrored projects no longer listed, those that may be deleted (no one else sees them). */
  removable(projectIds: readonly string[]): string[];
}

/** The project is mirrored by another process (its lease is not, or no longer, ours). */
export class NotHeldError extends ProjmirrorError {
  constructor(projectId: string) {
    super('not_held', `project ${projectId} is mirrored by another daemon`);
  }
}

/** A sole owner: every project is this process's (one daemon on its own mirror). */
export const SOLE_OWNER: ProjectClaims = {
  holder: undefined,
  mine: () => true,
  fence: () => undefined,
  listed: (projectIds) => [...projectIds],
  removable: (projectIds) => [...projectIds],
};
