/**
 * One error hierarchy with stable codes. Operational errors (bad input, the service refusing,
 * the network failing) reach the user as one line, never as a stack trace.
 */
import type { Project } from './records.js';

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

/** The longest piece of outside text (an id, a service message, a header) shown, in characters. */
export const MAX_SHOWN_CHARS = 200;
/** The longest error line, in characters. */
export const MAX_ERROR_LINE_CHARS = 2_000;

/**
 * Control characters, and the format characters that reorder or break a line on a terminal (line
 * and paragraph separators, bidirectional marks, overrides and isolates).
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCharacter(character: string): string {
  const named = NAMED_ESCAPES[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Outside text (from the service, a file, an event) made safe to show a person on one line:
 * control characters escaped (`\n` as `\\n`, ESC as `\\x1b`), and cut to `maxChars` characters
 * with an ellipsis, so that no id or message can forge terminal output or flood it.
 */
export function printable(text: string, maxChars: number = MAX_SHOWN_CHARS): string {
  // Only the head can be shown: escaping a 100 MB string first would be wasted work.
  const head = text.length > maxChars ? text.slice(0, maxChars) : text;
  const escaped = head.replace(UNPRINTABLE, escapeCharacter);
  if (escaped.length <= maxChars && head.length === text.length) return escaped;
  let cut = escaped.slice(0, maxChars - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Where a remote call was made, for error messages ("GET listTasks of p_1 page 3"). */
export interface RemoteContext {
  route: string;
  projectId?: string;
  page?: number;
}

/** The request a context names: `listTasks of p_1 page 3`. */
export function describeContext(context: RemoteContext): string {
  let text = printable(context.route);
  if (context.projectId !== undefined) text += ` of ${printable(context.projectId)}`;
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
      `${describeContext(context)}: HTTP ${status}${serviceCode ? ` ${serviceCode}` : ''}${detail}`,
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
  /** What is wrong with the response, without the request it answered. */
  readonly problem: string;

  constructor(context: RemoteContext, problem: string) {
    super('remote_malformed', `${describeContext(context)}: malformed response: ${problem}`);
    this.context = context;
    this.problem = problem;
  }
}

/** The request never got an answer: connection refused, reset, timeout or TLS failure. */
export class NetworkError extends ProjmirrorError {
  readonly context: RemoteContext;

  constructor(context: RemoteContext, problem: string, options?: { cause?: unknown }) {
    super('remote_network', `${describeContext(context)}: ${problem}`, options);
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
  let line: string;
  if (error instanceof ProjmirrorError) line = error.message;
  else if (error instanceof Error) line = `${error.name}: ${error.message}`;
  else line = String(error);
  return printable(line, MAX_ERROR_LINE_CHARS);
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
 * Some of the listings that make up the projects list failed (one of several tokens): `projects`
 * is what the others listed. A project missing from it may only be unseen, so none is taken as
 * deleted.
 */
export class IncompleteListingError extends ProjmirrorError {
  readonly projects: readonly Project[];
  /**
   * The tokens whose listing the service refused (401, 403), each with its error line, when
   * every failure was such a refusal: those tokens see no project now, so the listing of the
   * others is all there is. Empty when any failure was something else (a 5xx, the network).
   */
  readonly refusals: readonly TokenRefusal[];

  constructor(
    projects: readonly Project[],
    problem: string,
    refusals: readonly TokenRefusal[] = [],
  ) {
    super('listing_incomplete', `list projects: ${problem}`);
    this.projects = projects;
    this.refusals = refusals;
  }
}

/** A token the service refused: its label, the HTTP status (401, 403) and the error line. */
export interface TokenRefusal {
  label: string;
  status: number;
  reason: string;
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

/** PostgreSQL SQLSTATEs (or their classes) of a database that is away or busy, not of a bad statement. */
const TRANSIENT_SQLSTATES = /^(08|53|57P0[123]$|57014$|40001$|40P01$|55P03$)/;

/** The `errorCode` of a pass whose write the database refused for a full disk. */
export const DISK_FULL = 'disk_full';

/**
 * True when `error` says the database's disk is full: SQLite's `SQLITE_FULL` (a full disk, or
 * the file at its `max_page_count`), `ENOSPC` from the file system, PostgreSQL's `disk_full`
 * (SQLSTATE 53100). A write refused for it may succeed once space is freed.
 */
export function isDiskFull(error: unknown): boolean {
  const { code, sqlState, message } = (error ?? {}) as Record<string, unknown>;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || sqlState === '53100') return true;
  return typeof message === 'string' && /database or disk is full|\bENOSPC\b/.test(message);
}

/**
 * True when `error` says the database cannot answer now (a lock held elsewhere, a lost or
 * stalled connection, a server shutting down), so the same unit may succeed later; false for
 * an error the same unit would meet again (a bad statement, a constraint).
 */
export function isTransientStoreError(error: unknown): boolean {
  const { code, sqlState, name, message } = (error ?? {}) as Record<string, unknown>;
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code)) return true;
  if (isDiskFull(error)) return true;
  if (typeof sqlState === 'string') return TRANSIENT_SQLSTATES.test(sqlState);
  if (name === 'PgError') return true; // no SQLSTATE: the connection failed, not the statement
  return (
    typeof message === 'string' &&
    /did not answer within|connection to PostgreSQL was lost|PostgreSQL connection is closed/.test(
      message,
    )
  );
}
