/**
 * The seam between the engines (mirror, outbox, realtime refreshes) and the service. The engines
 * see only these interfaces; `src/remote` implements `RemoteApi` over HTTP and `src/budget`
 * implements `RequestGate`. Tests may substitute either.
 */
import type { Dependency, JsonObject, Member, Project, Resource, Task } from './records.js';
import type { RouteName } from './routes.js';

/** The largest `pageSize` list tasks accepts (spec 4.2 and 8). */
export const MAX_PAGE_SIZE = 500;

/** The answer to a conditional GET: `notModified` when the service said 304. */
export type Conditional<T> =
  | { notModified: true; etag: string | undefined }
  | { notModified: false; etag: string | undefined; value: T };

/** One page of list tasks. `totalCount` is `X-Total-Count` (undefined if a 304 omitted it). */
export type TaskPage =
  | { notModified: true; etag: string | undefined; totalCount: number | undefined }
  | { notModified: false; etag: string | undefined; totalCount: number; rows: Task[] };

/** A write to the service, as the outbox sends it: the exact bytes of the body are fixed. */
export interface WriteRequest {
  route: RouteName;
  /** Route parameters such as `projectId`, `taskId`. */
  params: Record<string, string>;
  /** The exact JSON text sent, identical on every retry; absent for bodiless requests. */
  body?: string;
  /** Sent as `Idempotency-Key` (creates). */
  idempotencyKey?: string;
  /** The project the write belongs to, for errors and the budget. */
  projectId: string;
  /**
   * The label of the token to send it with, when several are configured (`writeToken` chose it);
   * absent: the remote's own choice.
   */
  token?: string;
}

/** Which token sends a write: its label, or why no token can. */
export type WriteToken = { label: string } | { refused: string };

/** The service's answer to a successful write. `body` is parsed JSON, or null when empty. */
export interface WriteResponse {
  status: number;
  body: unknown;
}

/** What a request is for, so the gate can keep a reserve for the more urgent kinds. */
export type RequestPurpose = 'push' | 'refresh' | 'poll';

/** Per-call options of every remote operation. */
export interface CallOptions {
  signal?: AbortSignal;
  purpose?: RequestPurpose;
  /**
   * The project a call whose route names none belongs to (get task), so that a remote with
   * several tokens sends it with the token that reads that project.
   */
  projectId?: string;
  /**
   * Called once for each HTTP request the call sends (every retry, and each token's when several
   * answer or a request fails over), so that a caller counts requests rather than calls.
   */
  onSent?: () => void;
}

/**
 * The service's operations that the engines use. Every record returned has passed the one
 * validator (`validate.ts`) with its bounds. Errors are `src/domain/errors.ts` classes.
 */
export interface RemoteApi {
  listProjects(options?: CallOptions): Promise<Project[]>;
  getProject(
    projectId: string,
    etag?: string,
    options?: CallOptions,
  ): Promise<Conditional<Project>>;
  listTasksPage(
    projectId: string,
    page: number,
    pageSize: number,
    etag?: string,
    options?: CallOptions,
  ): Promise<TaskPage>;
  /** The task, or null when the service answers 404. */
  getTask(taskId: string, options?: CallOptions): Promise<Task | null>;
  listMembers(projectId: string, options?: CallOptions): Promise<Member[]>;
  listResources(projectId: string, options?: CallOptions): Promise<Resource[]>;
  listDependencies(projectId: string, options?: CallOptions): Promise<Dependency[]>;
  send(request: WriteRequest, options?: CallOptions): Promise<WriteResponse>;
  /**
   * With several tokens: the token that sends writes to `projectId`. `requested` (a label the
   * item recorded at its first attempt, or chose when queued) is kept when it is configured;
   * without one, the token that reads the project. A remote of one token need not implement it.
   */
  writeToken?(
    projectId: string,
    requested: string | null,
    options?: CallOptions,
  ): Promise<WriteToken>;
}

/** What a response told us about the budget, reported to the gate after every counted call. */
export interface BudgetObservation {
  status: number;
  /** `X-Quota-Limit`, when present. */
  quotaLimit?: number;
  /** `X-Quota-Remaining`, when present. */
  quotaRemaining?: number;
  /** For a 429: how long to wait, from `Retry-After` (seconds or HTTP date; 60 s when absent). */
  retryAfterMs?: number;
  /** For a 429: the body's code, such as `rate_limited` or `quota_exceeded`. */
  code?: string;
}

/**
 * The one governor of requests to the service: every counted request first awaits `acquire`,
 * then reports its response through `observe`. Health checks bypass it.
 */
export interface RequestGate {
  /** Resolves when one request may be sent now; rejects if `signal` aborts. */
  acquire(purpose: RequestPurpose, signal?: AbortSignal): Promise<void>;
  /** Learns from a response (quota headers, 429 pauses). */
  observe(observation: BudgetObservation): void;
}

/** Any JSON object record, as some list operations return them. */
export type RemoteRecord = JsonObject;
