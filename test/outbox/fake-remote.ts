/**
 * A small in-memory stand-in for the service's write side, for the outbox's unit tests: it keeps
 * tasks, replays creates by Idempotency-Key (409 on a different body), records every request,
 * and fails the next requests as a test scripts it.
 */
import {
  MalformedResponseError,
  NetworkError,
  RateLimitedError,
  RemoteStatusError,
  type RemoteApi,
  type Task,
  type WriteRequest,
  type WriteResponse,
} from '../../src/domain/index.js';

/**
 * A scripted failure of the next request. `commitThenDrop` applies the write, then fails as a
 * dropped connection; `commitThenHang` applies it and never answers (the caller dies waiting).
 */
export type Fault =
  | { kind: 'status'; status: number; code: string; message?: string }
  | { kind: 'rateLimited'; retryAfterMs: number }
  | { kind: 'network' }
  | { kind: 'malformed' }
  | { kind: 'emptyAnswer' }
  | { kind: 'commitThenDrop' }
  | { kind: 'commitThenHang' };

interface StoredTask {
  id: string;
  projectId: string;
  [key: string]: unknown;
}

/** The fake; `requests` lists every request received, in order. */
export class FakeRemote implements Pick<RemoteApi, 'send'> {
  readonly requests: WriteRequest[] = [];
  /** The ids of the tasks read again (get task), in order. */
  readonly reads: string[] = [];
  readonly tasks = new Map<string, StoredTask>();
  readonly faults: Fault[] = [];
  private readonly replays = new Map<
    string,
    { body: string | undefined; response: WriteResponse }
  >();
  private nextId = 1;

  async send(request: WriteRequest): Promise<WriteResponse> {
    this.requests.push(structuredClone(request));
    const fault = this.faults.shift();
    const context = { route: request.route, projectId: request.projectId };
    if (fault?.kind === 'status') {
      throw new RemoteStatusError(fault.status, fault.code, fault.message ?? 'refused', context);
    }
    if (fault?.kind === 'rateLimited') {
      throw new RateLimitedError('rate_limited', 'slow down', context, fault.retryAfterMs);
    }
    if (fault?.kind === 'network') throw new NetworkError(context, 'connection reset');
    if (fault?.kind === 'malformed') throw new MalformedResponseError(context, 'not JSON');
    const response = this.apply(request);
    if (fault?.kind === 'commitThenDrop') throw new NetworkError(context, 'socket hang up');
    if (fault?.kind === 'emptyAnswer') return { status: 204, body: null };
    if (fault?.kind === 'commitThenHang') await new Promise(() => {});
    return response;
  }

  /** The tasks of a project, in creation order. */
  tasksOf(projectId: string): StoredTask[] {
    return [...this.tasks.values()].filter((task) => task.projectId === projectId);
  }

  private apply(request: WriteRequest): WriteResponse {
    const key = request.idempotencyKey && `${request.projectId}:${request.idempotencyKey}`;
    if (key) {
      const seen = this.replays.get(key);
      if (seen && seen.body !== request.body) {
        const context = { route: request.route, projectId: request.projectId };
        throw new RemoteStatusError(409, 'idempotency_conflict', 'key reused', context);
      }
      if (seen) return seen.response;
    }
    const response = this.write(request);
    if (key) this.replays.set(key, { body: request.body, response });
    return response;
  }

  private write(request: WriteRequest): WriteResponse {
    const body = request.body === undefined ? {} : (JSON.parse(request.body) as object);
    if (request.route === 'createTask') {
      const task = { progress: 0, status: 'NotStarted', assigneeIds: [], ...body };
      const stored = { ...task, id: `t_${this.nextId++}`, projectId: request.projectId };
      this.tasks.set(stored.id, stored);
      return { status: 201, body: structuredClone(stored) };
    }
    const taskId = request.params['taskId'] ?? '';
    const existing = this.tasks.get(taskId);
    if (request.route === 'updateTask' && existing) {
      Object.assign(existing, body);
      return { status: 200, body: structuredClone(existing) };
    }
    if (request.route === 'deleteTask' && existing) {
      this.tasks.delete(taskId);
      return { status: 204, body: null };
    }
    if (request.route === 'createResource') {
      return { status: 201, body: { ...body, id: `r_${this.nextId++}` } };
    }
    const context = { route: request.route, projectId: request.projectId };
    throw new RemoteStatusError(404, 'not_found', 'no such record', context);
  }
}

/** A full `RemoteApi` whose reads are not used by the outbox and throw. */
export function asRemoteApi(fake: FakeRemote): RemoteApi {
  const unused = () => Promise.reject(new Error('not used by the outbox'));
  return {
    send: (request) => fake.send(request),
    listProjects: unused,
    getProject: unused,
    listTasksPage: unused,
    // The outbox reads a checked item's target again before sending it.
    getTask: (taskId) => {
      fake.reads.push(taskId);
      return Promise.resolve((fake.tasks.get(taskId) as Task | undefined) ?? null);
    },
    listMembers: unused,
    listResources: unused,
    listDependencies: unused,
  };
}
