/**
 * The service through several tokens, as one `RemoteApi`: the projects list is the union of
 * every token's listing, and each project's calls go through the token the routing assigns it
 * (`routing.ts`). When that token is refused (401, or 403 to the project), or its budget would
 * hold the call back (a spent quota, the reserve), the same call is sent again through the next
 * token that sees the project, so a pass goes on without a gap. Writes never change token: an
 * item's `Idempotency-Key` is scoped to the token it was first sent with (spec 4.1 rule 5).
 */
import type { Logger } from 'pino';
import {
  BudgetExhaustedError,
  errorLine,
  IncompleteListingError,
  RateLimitedError,
  RemoteStatusError,
  UsageError,
  type CallOptions,
  type Clock,
  type Conditional,
  type Dependency,
  type Member,
  type Project,
  type RemoteApi,
  type RequestPurpose,
  type Resource,
  type Task,
  type TaskPage,
  type WriteRequest,
  type WriteResponse,
  type TokenRefusal,
  type WriteToken,
} from '../domain/index.js';
import { DEFAULT_QUOTA_LIMIT, type BudgetSnapshot, type RequestGovernor } from '../budget/index.js';
import type { TokenScope } from './credentials.js';
import { ProjectRouting, type HandOver, type SavedRouting, type TokenBudget } from './routing.js';

/** What a token's HTTP client must offer besides `RemoteApi`. */
export interface TokenClient extends RemoteApi {
  health(options?: { signal?: AbortSignal }): Promise<unknown>;
  close(): Promise<void>;
}

/** One token's way to the service: its client (which holds the secret) and its governor. */
export interface TokenRoute {
  label: string;
  scope: TokenScope | undefined;
  remote: TokenClient;
  governor: RequestGovernor;
}

/** One token as `status`, the plan and the metrics see it. */
export interface TokenView {
  label: string;
  scope: TokenScope | undefined;
  budget: BudgetSnapshot;
  /** The projects read through it. */
  projects: string[];
  /** True while the service refuses it. */
  refused: boolean;
}

/** The routing as saved for `status` and the next run: each token, and each project's token. */
export interface RoutingState extends SavedRouting {
  tokens: { label: string; scope: TokenScope | null; refused: boolean }[];
}

/** Options of the routed remote. */
export interface RoutedRemoteOptions {
  routes: readonly TokenRoute[];
  clock: Clock;
  logger: Logger;
  /** Where the last run left each project. */
  restore?: SavedRouting | undefined;
}

/** `RemoteApi` over several tokens; see the module comment. */
export class RoutedRemote implements RemoteApi {
  readonly routing: ProjectRouting;
  private readonly routes: ReadonlyMap<string, TokenRoute>;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(options: RoutedRemoteOptions) {
    if (options.routes.length === 0) throw new UsageError('no token configured');
    this.routes = new Map(options.routes.map((route) => [route.label, route]));
    this.routing = new ProjectRouting(options.routes.map((route) => route.label));
    this.routing.restore(options.restore);
    this.clock = options.clock;
    this.logger = options.logger;
  }

  /** The union of every token's listing; `IncompleteListingError` when only some answered. */
  async listProjects(options?: CallOptions): Promise<Project[]> {
    const routes = [...this.routes.values()];
    const answers = await Promise.allSettled(routes.map((r) => r.remote.listProjects(options)));
    const union = new Map<string, Project>();
    const failures: string[] = [];
    const refusals: TokenRefusal[] = [];
    let firstError: unknown;
    answers.forEach((answer, index) => {
      const { label } = routes[index] as TokenRoute;
      if (answer.status === 'fulfilled') {
        this.routing.listed(
          label,
          answer.value.map((project) => project.id),
        );
        for (const project of answer.value)
          if (!union.has(project.id)) union.set(project.id, project);
        return;
      }
      firstError ??= answer.reason;
      if (refusal(answer.reason)) {
        this.routing.handOver(label, undefined, 'refused');
        const { status } = answer.reason;
        refusals.push({ label, status, reason: errorLine(answer.reason) });
      }
      failures.push(`token ${label}: ${errorLine(answer.reason)}`);
      // The caller reports the listing's failure (sync, one line; run, the reconcile's).
      this.logger.debug({ tokenLabel: label, err: errorLine(answer.reason) }, 'listing failed');
    });
    if (failures.length === routes.length) throw firstError;
    this.routing.assignAll([...union.keys()], this.budgets(options?.purpose));
    const projects = [...union.values()];
    if (failures.length > 0) {
      const onlyRefused = refusals.length === failures.length;
      throw new IncompleteListingError(projects, failures.join('; '), onlyRefused ? refusals : []);
    }
    return projects;
  }

  getProject(
    projectId: string,
    etag?: string,
    options?: CallOptions,
  ): Promise<Conditional<Project>> {
    return this.onProject(projectId, options, (remote) =>
      remote.getProject(projectId, etag, options),
    );
  }

  listTasksPage(
    projectId: string,
    page: number,
    pageSize: number,
    etag?: string,
    options?: CallOptions,
  ): Promise<TaskPage> {
    return this.onProject(projectId, options, (remote) =>
      remote.listTasksPage(projectId, page, pageSize, etag, options),
    );
  }

  getTask(taskId: string, options?: CallOptions): Promise<Task | null> {
    return this.onProject(options?.projectId, options, (remote) => remote.getTask(taskId, options));
  }

  listMembers(projectId: string, options?: CallOptions): Promise<Member[]> {
    return this.onProject(projectId, options, (remote) => remote.listMembers(projectId, options));
  }

  listResources(projectId: string, options?: CallOptions): Promise<Resource[]> {
    return this.onProject(projectId, options, (remote) => remote.listResources(projectId, options));
  }

  listDependencies(projectId: string, options?: CallOptions): Promise<Dependency[]> {
    return this.onProject(projectId, options, (remote) =>
      remote.listDependencies(projectId, options),
    );
  }

  /** Sends through `request.token` (else the project's writer), never through another. */
  async send(request: WriteRequest, options?: CallOptions): Promise<WriteResponse> {
    let label = request.token;
    if (label === undefined) {
      const choice = await this.writeToken(request.projectId, null, options);
      if ('refused' in choice) throw new UsageError(choice.refused);
      label = choice.label;
    }
    const route = this.routes.get(label);
    if (route === undefined) throw new UsageError(`no token is labelled ${label}`);
    return route.remote.send(request, options);
  }

  /**
   * The token that sends writes to `projectId`: the only one, when one is configured (an item
   * then goes whatever label it recorded); else `requested` if configured; else the token that
   * reads the project, learnt from the listings when no token is known to see it.
   */
  async writeToken(
    projectId: string,
    requested: string | null,
    options?: CallOptions,
  ): Promise<WriteToken> {
    if (this.routes.size === 1) return { label: [...this.routes.keys()][0] as string };
    if (requested !== null) {
      if (this.routes.has(requested)) return { label: requested };
      return { refused: `token ${requested} is not configured (the item keeps its first token)` };
    }
    if (this.routing.seenBy(projectId).length === 0) {
      try {
        await this.listProjects(options);
      } catch (error) {
        // A listing that failed in part may hide the project: try again later.
        if (this.routing.seenBy(projectId).length === 0) throw error;
      }
    }
    if (this.routing.seenBy(projectId).length === 0) {
      return { refused: `no configured token lists project ${projectId}` };
    }
    const label = this.routing.choose(projectId, this.budgets('push'));
    return label === undefined ? { refused: `no token can write ${projectId}` } : { label };
  }

  /** The token a project is read through (its lane for concurrent passes). */
  tokenOf(projectId: string): string | undefined {
    return this.routing.tokenOf(projectId);
  }

  /** Every token: its budget, the projects it reads, whether it is refused. */
  tokens(): TokenView[] {
    return [...this.routes.values()].map((route) => ({
      label: route.label,
      scope: route.scope,
      budget: route.governor.snapshot(),
      projects: this.routing.served(route.label),
      refused: this.routing.isRefused(route.label),
    }));
  }

  /** What to save for `status`, and so that the next run starts with the same token per project. */
  saved(): RoutingState {
    return {
      tokens: [...this.routes.values()].map((route) => ({
        label: route.label,
        scope: route.scope ?? null,
        refused: this.routing.isRefused(route.label),
      })),
      projects: this.routing.assignments(),
    };
  }

  /** Probes the service's health through the first token (not counted against any quota). */
  health(options?: { signal?: AbortSignal }): Promise<unknown> {
    return ([...this.routes.values()][0] as TokenRoute).remote.health(options);
  }

  /** Closes every token's connections. */
  async close(): Promise<void> {
    await Promise.all([...this.routes.values()].map((route) => route.remote.close()));
  }

  /**
   * Runs `call` through the project's token; when that token is refused, lost the project or is
   * out of budget, through the next one that sees the project, until one answers or every token
   * was tried (then the last error is thrown).
   */
  private async onProject<T>(
    projectId: string | undefined,
    options: CallOptions | undefined,
    call: (remote: TokenClient) => Promise<T>,
  ): Promise<T> {
    const tried = new Set<string>();
    for (;;) {
      const label = this.routing.choose(projectId, this.budgets(options?.purpose), tried);
      const route = label === undefined ? undefined : this.routes.get(label);
      if (route === undefined) throw new UsageError('no token configured');
      tried.add(route.label);
      try {
        const value = await call(route.remote);
        this.routing.succeeded(route.label, projectId);
        return value;
      } catch (error) {
        const why = handOverFor(
          error,
          projectId !== undefined && this.routing.sees(route.label, projectId),
        );
        if (why === undefined || options?.signal?.aborted) throw error;
        this.routing.handOver(route.label, projectId, why);
        if (tried.size >= this.routes.size) throw error;
        this.logger.info(
          { projectId, token: route.label, reason: why, err: errorLine(error) },
          'token handing the project over',
        );
      }
    }
  }

  /** Each token's budget for a call of `purpose`, now. */
  private budgets(purpose: RequestPurpose = 'poll'): Map<string, TokenBudget> {
    const now = this.clock.now();
    const budgets = new Map<string, TokenBudget>();
    for (const route of this.routes.values()) {
      const snapshot = route.governor.snapshot();
      budgets.set(route.label, {
        left: snapshot.quotaRemaining ?? snapshot.quotaLimit ?? DEFAULT_QUOTA_LIMIT,
        waitMs: Math.max(0, route.governor.readyAt(purpose) - now),
      });
    }
    return budgets;
  }
}

/** A refusal of the token itself: 401 to anything, 403 to its listing. */
function refusal(error: unknown): error is RemoteStatusError {
  return error instanceof RemoteStatusError && (error.status === 401 || error.status === 403);
}

/**
 * Why `error` moves the call to another token, or undefined when it would fail there too. A 404
 * moves it only while looking for a token that sees the project (`seen` false).
 */
function handOverFor(error: unknown, seen: boolean): HandOver | undefined {
  if (error instanceof BudgetExhaustedError) return 'exhausted';
  if (error instanceof RateLimitedError) {
    return error.serviceCode === 'quota_exceeded' ? 'exhausted' : undefined;
  }
  if (!(error instanceof RemoteStatusError)) return undefined;
  if (error.status === 401) return 'refused';
  if (error.status === 403 && error.serviceCode !== 'project_read_only') return 'hidden';
  if (error.status === 404 && !seen) return 'hidden';
  return undefined;
}
