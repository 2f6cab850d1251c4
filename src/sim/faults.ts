/**
 * Fault injection: fail the next requests of an operation in chosen ways, delay them, drop the
 * connection after committing a write, or change the model between two page requests.
 *
 * Failures (`status`, `html`, `malformed`, `wrongShape`, `drop`) answer before authentication
 * and limits, so they cost the client no quota, as a failing proxy would. `commitThenDrop` and
 * delays go through the normal path (counted) and only change how the answer is delivered.
 */
import type { RouteName } from '../domain/index.js';

/** How an injected failure answers. */
export type FaultKind =
  | 'status' // the chosen status with a `{code, message}` body
  | 'html' // an HTML error page (default status 502)
  | 'malformed' // 200 with a truncated JSON body
  | 'wrongShape' // 200 with well-formed JSON of the wrong shape
  | 'drop' // the socket is destroyed without an answer, before any processing
  | 'commitThenDrop'; // the request is fully processed (a write commits), then the socket drops

/** Which requests a fault or delay applies to. */
export interface FaultTarget {
  /** An operation name of `DEFAULT_ROUTES`, or `*` (the default) for any request. */
  route?: RouteName | '*';
  /** How many matching requests it applies to (default 1; `Infinity` for all). */
  count?: number;
  /** A further condition on the request (method, path, route). */
  when?: (request: FaultRequest) => boolean;
}

/** A failure to inject. */
export interface FaultRule extends FaultTarget {
  kind: FaultKind;
  /** For `status` (default 500) and `html` (default 502). */
  status?: number;
  /** For `status`: the body's code (default from the status, e.g. `internal_error`). */
  code?: string;
  message?: string;
  /** Exact body text, overriding the kind's default body. */
  body?: string;
  /** Extra response headers, such as `Retry-After`. */
  headers?: Record<string, string>;
}

/** A delay before processing. */
export interface DelayRule extends FaultTarget {
  ms: number;
}

/** What a fault's `when` sees of a request. */
export interface FaultRequest {
  method: string;
  path: string;
  route: RouteName;
}

/** Runs between the arrival of a page request and the reading of that page. */
export type PageHook = () => void | Promise<void>;

interface Armed<T> {
  rule: T;
  remaining: number;
}

/** The injected faults of one simulator. */
export class Faults {
  private failures: Armed<FaultRule>[] = [];
  private delays: Armed<DelayRule>[] = [];
  private pageHooks: { projectId: string; page: number; hook: PageHook; remaining: number }[] = [];

  /** Makes the next `count` matching requests fail as `rule` says. */
  failNext(rule: FaultRule): void {
    this.failures.push({ rule, remaining: rule.count ?? 1 });
  }

  /** Delays the next `count` matching requests by `ms` (real time, not the simulator clock). */
  delay(rule: DelayRule): void {
    this.delays.push({ rule, remaining: rule.count ?? 1 });
  }

  /**
   * Runs `hook` when list tasks of `projectId` asks for `page`, before that page is read
   * (`times` requests, default 1): e.g. add or delete tasks while a client pages.
   */
  beforePage(projectId: string, page: number, hook: PageHook, times = 1): void {
    this.pageHooks.push({ projectId, page, hook, remaining: times });
  }

  /** Removes every pending fault, delay and page hook. */
  clear(): void {
    this.failures = [];
    this.delays = [];
    this.pageHooks = [];
  }

  /** How many faults, delays and page hooks are still armed. */
  get pending(): number {
    return this.failures.length + this.delays.length + this.pageHooks.length;
  }

  /** Takes the failure for this request, if one is armed (the pipeline calls this). */
  takeFailure(request: FaultRequest): FaultRule | undefined {
    const armed = take(this.failures, request);
    this.failures = this.failures.filter((entry) => entry.remaining > 0);
    return armed?.rule;
  }

  /** Takes the delay for this request in ms, 0 when none is armed. */
  takeDelay(request: FaultRequest): number {
    const armed = take(this.delays, request);
    this.delays = this.delays.filter((entry) => entry.remaining > 0);
    return armed?.rule.ms ?? 0;
  }

  /** Runs (and uses up) the page hooks of this page request. */
  async runPageHooks(projectId: string, page: number): Promise<void> {
    const due = this.pageHooks.filter(
      (entry) => entry.projectId === projectId && entry.page === page,
    );
    for (const entry of due) entry.remaining -= 1;
    this.pageHooks = this.pageHooks.filter((entry) => entry.remaining > 0);
    for (const entry of due) await entry.hook();
  }
}

function take<T extends FaultTarget>(
  armed: Armed<T>[],
  request: FaultRequest,
): Armed<T> | undefined {
  const found = armed.find(
    (entry) =>
      entry.remaining > 0 &&
      (entry.rule.route === undefined ||
        entry.rule.route === '*' ||
        entry.rule.route === request.route) &&
      (entry.rule.when === undefined || entry.rule.when(request)),
  );
  if (found !== undefined) found.remaining -= 1;
  return found;
}

/** What tests use of `Faults`: arming and clearing (the pipeline takes the rest). */
export type FaultControl = Pick<Faults, 'failNext' | 'delay' | 'beforePage' | 'clear' | 'pending'>;
