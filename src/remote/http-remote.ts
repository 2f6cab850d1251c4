/**
 * The service's operations over HTTP (`RemoteApi`), plus a health probe that bypasses the gate.
 * Every body is checked before it is returned: malformed data never reaches the mirror.
 */
import type { Agent } from 'undici';
import {
  MalformedResponseError,
  MAX_PAGE_SIZE,
  printable,
  RemoteStatusError,
  UsageError,
  checkList,
  checkProject,
  checkRecord,
  checkTask,
  checkTaskPage,
  taskOfProject,
  type CallOptions,
  type Conditional,
  type Dependency,
  type Member,
  type Project,
  type RemoteApi,
  type RemoteContext,
  type Resource,
  type RecordType,
  type RouteName,
  type Task,
  type TaskPage,
  type WriteRequest,
  type WriteResponse,
} from '../domain/index.js';
import { createAgent } from './agent.js';
import { MAX_RECORD_BODY_BYTES, pageBodyBytes } from './bounds.js';
import { Caller, type Call } from './caller.js';
import { resolveOptions, type HttpRemoteOptions, type ResolvedOptions } from './options.js';
import { countHeader, parseBody, scanBody } from './responses.js';
import { header, Transport, type RawResponse } from './transport.js';

/** What the health probe saw. */
export interface HealthResult {
  status: number;
  ms: number;
  /** The body as JSON, or null when empty or not JSON. */
  body: unknown;
}

/** The record each write route returns, checked when the body is not empty. */
const WRITE_RESULTS: Partial<Record<RouteName, RecordType>> = {
  createTask: 'task',
  updateTask: 'task',
  setAssignees: 'task',
  createResource: 'resource',
  updateResource: 'resource',
  addDependency: 'dependency',
};

/** The HTTP client of the service. `close()` ends its connections. */
export class HttpRemote implements RemoteApi {
  private readonly options: ResolvedOptions;
  private readonly agent: Agent;
  private readonly transport: Transport;
  private readonly caller: Caller;

  constructor(options: HttpRemoteOptions) {
    this.options = resolveOptions(options);
    this.agent = createAgent(this.options);
    this.transport = new Transport(this.options, this.agent);
    this.caller = new Caller(this.options, this.transport);
  }

  async listProjects(options?: CallOptions): Promise<Project[]> {
    const { response, context } = await this.get('listProjects', {}, options, {
      maxBodyBytes: this.options.maxResponseBytes,
    });
    return checkList(parseBody(response, context), 'project', context) as Project[];
  }

  async getProject(
    projectId: string,
    etag?: string,
    options?: CallOptions,
  ): Promise<Conditional<Project>> {
    const { response, context } = await this.get('getProject', { projectId }, options, {
      etag,
      maxBodyBytes: MAX_RECORD_BODY_BYTES,
    });
    const tag = header(response, 'etag');
    if (response.status === 304) return { notModified: true, etag: tag ?? etag };
    const value = checkProject(parseBody(response, context), context, 'body', projectId);
    return { notModified: false, etag: tag, value };
  }

  async listTasksPage(
    projectId: string,
    page: number,
    pageSize: number,
    etag?: string,
    options?: CallOptions,
  ): Promise<TaskPage> {
    checkPaging(page, pageSize);
    const { response, context } = await this.get('listTasks', { projectId }, options, {
      etag,
      page,
      query: { page, pageSize },
      maxBodyBytes: pageBodyBytes(pageSize),
    });
    const tag = header(response, 'etag');
    const totalCount = countHeader(response, 'x-total-count');
    if (response.status === 304) return { notModified: true, etag: tag ?? etag, totalCount };
    if (totalCount === undefined) {
      const raw = header(response, 'x-total-count');
      const problem =
        raw === undefined ? 'missing' : `${printable(JSON.stringify(raw))}, not a count`;
      throw new MalformedResponseError(context, `X-Total-Count ${problem}`);
    }
    const rows = checkTaskPage(parseBody(response, context, pageSize), pageSize, context);
    return { notModified: false, etag: tag, totalCount, rows };
  }

  async getTask(taskId: string, options?: CallOptions): Promise<Task | null> {
    const { response, context } = await this.get('getTask', { taskId }, options, {
      accept: [404],
      maxBodyBytes: MAX_RECORD_BODY_BYTES,
    });
    if (response.status === 404) return null;
    const task = checkTask(parseBody(response, context), context);
    // Asked for a task of a project: it must not name another one (the writer trusts it).
    const projectId = options?.projectId;
    return projectId === undefined ? task : taskOfProject(task, projectId, context);
  }

  async listMembers(projectId: string, options?: CallOptions): Promise<Member[]> {
    return (await this.list('listMembers', projectId, 'member', options)) as Member[];
  }

  async listResources(projectId: string, options?: CallOptions): Promise<Resource[]> {
    return (await this.list('listResources', projectId, 'resource', options)) as Resource[];
  }

  async listDependencies(projectId: string, options?: CallOptions): Promise<Dependency[]> {
    return (await this.list('listDependencies', projectId, 'dependency', options)) as Dependency[];
  }

  /** One attempt of a write (a 429 is waited out and retried); errors are typed for the outbox. */
  async send(request: WriteRequest, options?: CallOptions): Promise<WriteResponse> {
    const route = this.options.routes[request.route];
    const context = contextOf(request.route, route.method, request.params, request.projectId);
    const kind = WRITE_RESULTS[request.route];
    const response = await this.caller.call({
      name: request.route,
      route,
      params: request.params,
      context,
      purpose: options?.purpose ?? 'push',
      maxBodyBytes: kind === undefined ? this.options.maxResponseBytes : MAX_RECORD_BODY_BYTES,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      ...(options?.signal ? { signal: options.signal } : {}),
      ...(options?.onSent ? { onSent: options.onSent } : {}),
    });
    // An answer no record check walks (reorder, set dependencies) is still kept within bounds.
    if (kind === undefined) scanBody(response, context);
    const body = parseBody(response, context);
    if (kind !== undefined && body !== null) checkRecord(body, kind, context);
    return { status: response.status, body };
  }

  /** Probes `GET /health` outside the gate (it is not counted); throws unless 2xx. */
  async health(options?: { signal?: AbortSignal }): Promise<HealthResult> {
    const route = this.options.routes.health;
    const context = contextOf('health', route.method, {});
    const started = this.options.clock.now();
    const response = await this.transport.exchange({
      name: 'health',
      route,
      params: {},
      context,
      maxBodyBytes: MAX_RECORD_BODY_BYTES,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    if (response.status < 200 || response.status >= 300) {
      throw new RemoteStatusError(response.status, undefined, undefined, context);
    }
    let body: unknown = null;
    try {
      body = parseBody(response, context);
    } catch {
      body = null;
    }
    return { status: response.status, ms: this.options.clock.now() - started, body };
  }

  /** Closes every connection; calls after this fail. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async list(
    name: RouteName,
    projectId: string,
    kind: RecordType,
    options: CallOptions | undefined,
  ): Promise<unknown[]> {
    const { response, context } = await this.get(name, { projectId }, options, {
      maxBodyBytes: this.options.maxResponseBytes,
    });
    return checkList(parseBody(response, context), kind, context);
  }

  private async get(
    name: RouteName,
    params: Record<string, string>,
    options: CallOptions | undefined,
    extra: Partial<Pick<Call, 'etag' | 'query' | 'accept'>> &
      Pick<Call, 'maxBodyBytes'> & { page?: number },
  ): Promise<{ response: RawResponse; context: RemoteContext }> {
    const route = this.options.routes[name];
    const context = contextOf(name, route.method, params, params['projectId'], extra.page);
    const call: Call = {
      name,
      route,
      params,
      context,
      purpose: options?.purpose ?? 'poll',
      maxBodyBytes: extra.maxBodyBytes,
      ...(extra.etag === undefined ? {} : { etag: extra.etag }),
      ...(extra.query ? { query: extra.query } : {}),
      ...(extra.accept ? { accept: extra.accept } : {}),
      ...(options?.signal ? { signal: options.signal } : {}),
      ...(options?.onSent ? { onSent: options.onSent } : {}),
    };
    return { response: await this.caller.call(call), context };
  }
}

/** Builds the client; see `HttpRemoteOptions`. */
export function createHttpRemote(options: HttpRemoteOptions): HttpRemote {
  return new HttpRemote(options);
}

/** Where a call goes, for errors: "GET listTasks of p_1 page 3", "PATCH updateTask t_9 of p_1". */
function contextOf(
  name: RouteName,
  method: string,
  params: Record<string, string>,
  projectId?: string,
  page?: number,
): RemoteContext {
  const targets = Object.entries(params)
    .filter(([key]) => key !== 'projectId')
    .map(([, value]) => value);
  const context: RemoteContext = { route: [method, name, ...targets].join(' ') };
  if (projectId !== undefined) context.projectId = projectId;
  if (page !== undefined) context.page = page;
  return context;
}

function checkPaging(page: number, pageSize: number): void {
  if (!Number.isSafeInteger(page) || page < 1) {
    throw new UsageError(`page ${page} is not a page number (pages start at 1)`);
  }
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new UsageError(`pageSize ${pageSize} is not within 1..${MAX_PAGE_SIZE}`);
  }
}
