/**
 * One error hierarchy with stable codes. Operational errors (bad input, the service refusing,
 * the network failing) reach the user as one line, never as a stack trace.
 */

/** The root of every error projmirror raises on purpose. */
export class ProjmirrorError extends Error {
  /** A stable machine-readable code, such as `usage` or `remote_malformed`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bad flags, configuration or input: the process exits 2. */
export class UsageError extends ProjmirrorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('usage', message, options);
  }
}

/** Where a remote call was made, for error messages ("GET listTasks of p_1 page 3"). */
export interface RemoteContext {
  route: string;
  projectId?: string;
  page?: number;
}

function describe(context: RemoteContext): string {
  let text = context.route;
  if (context.projectId !== undefined) text += ` of ${context.projectId}`;
  if (context.page !== undefined) text += ` page ${context.page}`;
  return text;
}

/** The service answered with an error status. `serviceCode` is the body's `code` when present. */
export class RemoteStatusError extends ProjmirrorError {
  readonly status: number;
  readonly serviceCode: string | undefined;
  readonly context: RemoteContext;

  constructor(
    status: number,
    serviceCode: string | undefined,
    serviceMessage: string | undefined,
    context: RemoteContext,
  ) {
    const detail = serviceMessage ? `: ${serviceMessage}` : '';
    super(
      'remote_status',
      `${describe(context)}: HTTP ${status}${serviceCode ? ` ${serviceCode}` : ''}${detail}`,
    );
    this.status = status;
    this.serviceCode = serviceCode;
    this.context = context;
  }

  /** Retrying the same request later may succeed (5xx and 429). */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

/** The service answered 429; `retryAfterMs` is how long to wait before any further request. */
export class RateLimitedError extends RemoteStatusError {
  readonly retryAfterMs: number;

  constructor(
    serviceCode: string | undefined,
    serviceMessage: string | undefined,
    context: RemoteContext,
    retryAfterMs: number,
  ) {
    super(429, serviceCode, serviceMessage, context);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The body was not JSON, or not of the expected shape. Never written to the mirror. */
export class MalformedResponseError extends ProjmirrorError {
  readonly context: RemoteContext;

  constructor(context: RemoteContext, problem: string) {
    super('remote_malformed', `${describe(context)}: malformed response: ${problem}`);
    this.context = context;
  }
}

/** The request never got an answer: connection refused, reset, timeout or TLS failure. */
export class NetworkError extends ProjmirrorError {
  readonly context: RemoteContext;

  constructor(context: RemoteContext, problem: string, options?: { cause?: unknown }) {
    super('remote_network', `${describe(context)}: ${problem}`, options);
    this.context = context;
  }
}

/** The mirror database could not be opened or written. */
export class StoreError extends ProjmirrorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store', message, options);
  }
}

/** One line for any error: the message of ours, or a short description of anything else. */
export function errorLine(error: unknown): string {
  if (error instanceof ProjmirrorError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** The daily quota is spent (or a pause is longer than the caller will wait); `resumeAt` is when. */
export class BudgetExhaustedError extends ProjmirrorError {
  readonly resumeAt: number;

  constructor(resumeAt: number, reason: string) {
    super('budget_exhausted', `${reason}; requests resume at ${new Date(resumeAt).toISOString()}`);
    this.resumeAt = resumeAt;
  }
}

/**
 * A full read of a project's tasks did not hold together even after its one repeat: the total
 * kept moving, rows came twice, or pages ran past `X-Total-Count`. The mirror is left as it was.
 */
export class InconsistentReadError extends ProjmirrorError {
  readonly projectId: string;

  constructor(projectId: string, problem: string) {
    super('read_inconsistent', `list tasks of ${projectId}: ${problem} (after one repeat)`);
    this.projectId = projectId;
  }
}
