/** The mirror engine's options, progress events and reports. */
import type { Logger } from 'pino';
import {
  MAX_PAGE_SIZE,
  type Clock,
  type ProjectClaims,
  type RemoteApi,
  type RequestPurpose,
  type TokenRefusal,
} from '../domain/index.js';

export { MAX_PAGE_SIZE };
import type { MirrorPort } from '../store/port.js';

/** Rows asked for per list-tasks page: the service's maximum (spec 4.2). */
export const DEFAULT_PAGE_SIZE = 500;

/** A full read is repeated at most once when the collection moved under it (spec 4.2 rule 4). */
export const MAX_READ_ATTEMPTS = 2;

/** Pages read past `X-Total-Count / pageSize` before a read is declared runaway. */
export const PAGE_SLACK = 2;

/** What the engine needs: the mirror's units of work, the service, time, logs. */
export interface MirrorOptions {
  store: MirrorPort;
  remote: RemoteApi;
  clock: Clock;
  logger: Logger;
  /** Rows per list-tasks page, 1 to 500; constant for every read. */
  pageSize?: number;
  /** Called after every task page read (for progress bars). */
  onProgress?: (progress: SyncProgress) => void;
  /**
   * The lane of a project's pass in `syncAll`: lanes run at once, each one project at a time
   * (the composition root gives each token its lane). One lane when absent.
   */
  laneOf?: (projectId: string) => string;
  /** The projects this process mirrors: all of them unless daemons share a PostgreSQL mirror. */
  claims?: ProjectClaims;
}

/** Per-call options of a sync. */
export interface SyncOptions {
  /** Stops the pass between requests; the mirror keeps what was committed, the pages read stay kept. */
  signal?: AbortSignal;
  /** Told to the request gate; `poll` unless said otherwise. */
  purpose?: RequestPurpose;
  /**
   * The pass must begin after this call, because the caller learned of a change just now: a pass
   * already running (whose reads may predate the change) is awaited, then one more runs, shared by
   * every such caller meanwhile. Otherwise a call joins the pass running.
   */
  fresh?: boolean;
}

/** One task page read, as reported to `onProgress`. */
export interface SyncProgress {
  projectId: string;
  /** 1, or 2 for the one repeat of a read that moved. */
  attempt: number;
  /** The page just read. */
  page: number;
  /** Rows read so far in this attempt. */
  tasksRead: number;
  /** The latest `X-Total-Count`, if the service sent one. */
  totalCount: number | undefined;
  /** The page was answered 304 and its kept rows reused. */
  notModified: boolean;
  /** The project's first pass, committed page by page. */
  backfill: boolean;
}

/** What one project's pass did. Counts cover the whole pass, both attempts. */
export interface ProjectSyncResult {
  projectId: string;
  /** The mirror holds a consistent full read of the project made by this pass. */
  ok: boolean;
  /** One line, when not ok. */
  error?: string;
  /** The error's stable code (`budget_exhausted`, `remote_status`, `read_inconsistent`...). */
  errorCode?: string;
  /** When the pass began (ms since the epoch); absent when no pass ran. */
  startedAt?: number;
  /**
   * HTTP requests sent for this project (each page, the three lists, get project), every retry
   * and each try through another token included.
   */
  requests: number;
  /** Task pages requested, 304s included. */
  pagesRead: number;
  /** Task pages answered 304 and reused. */
  pagesNotModified: number;
  /**
   * The pages it asked with a kept ETag, and whether each had changed since (a 200) or not (a
   * 304): observations for the pages' change-rate estimates.
   */
  pageLooks?: { page: number; changed: boolean }[];
  /** Mirrored records (project, tasks, members, resources, dependencies) inserted, updated or deleted. */
  rowsWritten: number;
  /** `task_history` rows appended. */
  historyWritten: number;
  /** Tasks the mirror holds for the project afterwards. */
  tasks: number;
  /** Full reads made: 1, or 2 when the first moved under the pass. */
  attempts: number;
  /** This was the project's first pass (its baseline), committed page by page. */
  backfill: boolean;
  /** The service's `updatedAt` (ms) of the tasks it changed or added (none in a backfill). */
  changedAt?: number[];
}

/** What `syncAll` did. */
export interface SyncReport {
  /** Every project asked for passed. */
  ok: boolean;
  /** Why no project could be synced (list projects failed). */
  error?: string;
  /**
   * Why the projects list is incomplete (some of several tokens failed to list): projects only
   * they list were not synced, and no project was removed.
   */
  listingError?: string;
  /**
   * When the listing is incomplete only because the service refused some tokens (401, 403):
   * those tokens and why. The others' projects are all there is to mirror, so the report can
   * be ok; nothing is removed all the same.
   */
  refusedTokens?: TokenRefusal[];
  /** HTTP requests sent: every token's listing, every page and list, retries and failover. */
  requests: number;
  projects: ProjectSyncResult[];
  /** Projects deleted from the mirror because the service no longer lists them. */
  removedProjects: string[];
  /** Listed projects another daemon sharing the mirror holds: it mirrors them, this run did not. */
  heldElsewhere?: string[];
  /** Every project the tokens listed (some of them, when `listingError` says so). */
  listed?: string[];
}

export type { ApplyOutcome } from '../store/port.js';
