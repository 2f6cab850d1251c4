/**
 * An in-memory `RemoteApi` for the mirror's tests: ordered task lists paged like the service
 * (ETag per page from its rows, `X-Total-Count`, 304 on a matching If-None-Match), with hooks to
 * change the data between pages, fail calls, or misbehave.
 */
import { createHash } from 'node:crypto';
import {
  checkTaskPage,
  MalformedResponseError,
  RemoteStatusError,
  type CallOptions,
  type Conditional,
  type Dependency,
  type JsonObject,
  type Member,
  type Project,
  type RemoteApi,
  type Resource,
  type Task,
  type TaskPage,
  type WriteResponse,
} from '../../src/domain/index.js';

/** One call the fake answered (or refused). */
export interface FakeCall {
  route: string;
  projectId?: string;
  page?: number;
  etag?: string;
  status?: number;
}

/** A page as the fake would serve it; a `pageOverride` may return another. */
export interface ServedPage {
  rows: unknown;
  totalCount: number;
}

/** A task with every field the spec names. */
export function makeTask(id: string, overrides: Partial<Task> = {}): Task {
  return {
    id,
    name: `Task ${id}`,
    startDate: '2026-01-05',
    endDate: '2026-01-09',
    status: 'NotStarted',
    progress: 0,
    assigneeIds: ['m1'],
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function etagOf(value: unknown): string {
  return `"${createHash('sha1').update(JSON.stringify(value)).digest('hex').slice(0, 16)}"`;
}

/** The fake service. Mutate its maps freely between (or, through hooks, during) passes. */
export class FakeRemote implements RemoteApi {
  readonly projects = new Map<string, Project>();
  readonly tasks = new Map<string, Task[]>();
  readonly members = new Map<string, Member[]>();
  readonly resources = new Map<string, Resource[]>();
  readonly dependencies = new Map<string, Dependency[]>();
  readonly calls: FakeCall[] = [];
  /** Answer 304s without `X-Total-Count`. */
  omitTotalOn304 = false;
  /** Runs before a list-tasks page is computed: change the data, or throw to fail the call. */
  beforePage: ((projectId: string, page: number) => void | Promise<void>) | undefined;
  /** Runs before every call; throw to fail it. */
  beforeCall: ((call: FakeCall) => void | Promise<void>) | undefined;
  /** Replaces what a page serves (a misbehaving service). */
  pageOverride: ((page: number, served: ServedPage) => ServedPage) | undefined;

  /** Adds a project with `count` tasks (ids `<projectId>-t<n>`), a member, a resource and a dependency. */
  seed(projectId: string, count: number): void {
    this.projects.set(projectId, {
      id: projectId,
      name: `Project ${projectId}`,
      active: true,
      readOnlyReason: null,
    });
    const tasks = Array.from({ length: count }, (_, i) => makeTask(`${projectId}-t${i + 1}`));
    this.tasks.set(projectId, tasks);
    this.members.set(projectId, [{ id: 'm1', name: 'Ada', kind: 'person' }]);
    this.resources.set(projectId, [{ id: `${projectId}-r1`, name: 'Crane' }]);
    const deps =
      count >= 2
        ? [
            {
              id: `${projectId}-d1`,
              predecessorId: tasks[0]!.id,
              successorId: tasks[1]!.id,
              type: 'FS',
            },
          ]
        : [];
    this.dependencies.set(projectId, deps);
  }

  /** How many calls of a route were answered with `status` (any status when omitted). */
  count(route: string, status?: number): number {
    return this.calls.filter(
      (c) => c.route === route && (status === undefined || c.status === status),
    ).length;
  }

  async listProjects(options?: CallOptions): Promise<Project[]> {
    await this.enter({ route: 'listProjects', status: 200 }, options);
    return structuredClone([...this.projects.values()]);
  }

  async getProject(
    projectId: string,
    etag?: string,
    options?: CallOptions,
  ): Promise<Conditional<Project>> {
    const project = this.projects.get(projectId);
    if (project === undefined) {
      await this.enter({ route: 'getProject', projectId, status: 404 }, options);
      throw new RemoteStatusError(404, 'not_found', 'no such project', {
        route: 'getProject',
        projectId,
      });
    }
    const current = etagOf(project);
    const status = etag === current ? 304 : 200;
    await this.enter(
      { route: 'getProject', projectId, ...(etag ? { etag } : {}), status },
      options,
    );
    if (status === 304) return { notModified: true, etag: current };
    return { notModified: false, etag: current, value: structuredClone(project) };
  }

  async listTasksPage(
    projectId: string,
    page: number,
    pageSize: number,
    etag?: string,
    options?: CallOptions,
  ): Promise<TaskPage> {
    options?.signal?.throwIfAborted();
    options?.onSent?.();
    const call: FakeCall = { route: 'listTasks', projectId, page, ...(etag ? { etag } : {}) };
    await this.beforeCall?.(call);
    await this.beforePage?.(projectId, page);
    const all = this.tasks.get(projectId) ?? [];
    let served: ServedPage = {
      rows: all.slice((page - 1) * pageSize, page * pageSize),
      totalCount: all.length,
    };
    if (this.pageOverride) served = this.pageOverride(page, served);
    const current = etagOf(served.rows);
    if (etag === current) {
      this.calls.push({ ...call, status: 304 });
      const totalCount = this.omitTotalOn304 ? undefined : served.totalCount;
      return { notModified: true, etag: current, totalCount };
    }
    this.calls.push({ ...call, status: 200 });
    // Checked as the HTTP client checks a page: `RemoteApi` returns checked records only.
    const context = { route: 'listTasks', projectId, page };
    return {
      notModified: false,
      etag: current,
      totalCount: served.totalCount,
      rows: checkTaskPage(structuredClone(served.rows), pageSize, context),
    };
  }

  async getTask(taskId: string, options?: CallOptions): Promise<Task | null> {
    await this.enter({ route: 'getTask', status: 200 }, options);
    for (const tasks of this.tasks.values()) {
      const task = tasks.find((t) => t.id === taskId);
      if (task) return structuredClone(task);
    }
    return null;
  }

  async listMembers(projectId: string, options?: CallOptions): Promise<Member[]> {
    return this.list('listMembers', projectId, this.members, options);
  }

  async listResources(projectId: string, options?: CallOptions): Promise<Resource[]> {
    return this.list('listResources', projectId, this.resources, options);
  }

  async listDependencies(projectId: string, options?: CallOptions): Promise<Dependency[]> {
    return this.list('listDependencies', projectId, this.dependencies, options);
  }

  async send(): Promise<WriteResponse> {
    throw new MalformedResponseError({ route: 'send' }, 'the fake does not take writes');
  }

  private async list<T extends JsonObject>(
    route: string,
    projectId: string,
    from: Map<string, T[]>,
    options: CallOptions | undefined,
  ): Promise<T[]> {
    await this.enter({ route, projectId, status: 200 }, options);
    return structuredClone(from.get(projectId) ?? []);
  }

  /** A call reaches the fake: it counts as sent (`onSent`) before it may fail. */
  private async enter(call: FakeCall, options: CallOptions | undefined): Promise<void> {
    options?.onSent?.();
    await this.beforeCall?.(call);
    this.calls.push(call);
  }
}
