/**
 * Polls that read what is due rather than the whole project: one page of its tasks, asked with
 * the kept page's ETag, or the project with its three side lists. Neither deletes a task: a page
 * is applied only when the service's total and the page's ids are as the last consistent pass
 * left them (`src/store/writer/page-poll.ts`); otherwise its result asks for a full pass, which
 * the caller runs.
 */
import { MalformedResponseError, type RemoteApi } from '../domain/index.js';
import type { MirrorPort, PagePollOutcome } from '../store/port.js';
import type { SyncOptions } from './types.js';

/** What a page poll needs: the mirror's units, the remote and the page size of passes. */
export interface PagePollDeps {
  mirror: MirrorPort;
  remote: RemoteApi;
  pageSize: number;
}

/** What a single-page poll found. */
export interface PagePollResult {
  projectId: string;
  page: number;
  /** HTTP requests sent (one, or more when retried). */
  requests: number;
  /** The service answered 304: the page is as kept. */
  notModified: boolean;
  outcome: PagePollOutcome;
}

/** What a side-list poll found. */
export interface ListsPollResult {
  projectId: string;
  requests: number;
  /** The project or one of its lists differed from the mirror (and was written). */
  changed: boolean;
}

/** Reads page `page` of `projectId` with its kept ETag and applies it if it can be alone. */
export async function pollPage(
  deps: PagePollDeps,
  projectId: string,
  page: number,
  call: SyncOptions = {},
): Promise<PagePollResult> {
  const { mirror, remote, pageSize } = deps;
  const kept = await mirror.keptHead(projectId, pageSize, page);
  let requests = 0;
  const base = { projectId, page };
  // A pass of the project is in flight and reads the page: no request (it would be discarded).
  if (kept === 'busy') return { ...base, requests, notModified: false, outcome: { kind: 'busy' } };
  if (kept === undefined) {
    const outcome = { kind: 'escalate', reason: `page ${page} is not kept` } as const;
    return { ...base, requests, notModified: false, outcome };
  }
  call.signal?.throwIfAborted();
  const answer = await remote.listTasksPage(projectId, page, pageSize, kept.etag ?? undefined, {
    signal: call.signal,
    purpose: call.purpose ?? 'poll',
    onSent: () => (requests += 1),
  });
  if (answer.notModified && kept.etag == null) {
    const context = { route: 'listTasks', projectId, page };
    throw new MalformedResponseError(context, '304 Not Modified to a request without ETag');
  }
  const outcome = await mirror.pagePolled({
    projectId,
    pageSize,
    page,
    etag: answer.etag,
    totalCount: answer.totalCount,
    texts: answer.notModified ? undefined : answer.rows.map((task) => JSON.stringify(task)),
  });
  return { ...base, requests, notModified: answer.notModified, outcome };
}

/** Reads the project and its three side lists (four requests) and writes what differs. */
export async function pollLists(
  deps: PagePollDeps,
  projectId: string,
  call: SyncOptions = {},
): Promise<ListsPollResult> {
  const { mirror, remote } = deps;
  let requests = 0;
  const options = {
    signal: call.signal,
    purpose: call.purpose ?? 'poll',
    onSent: () => (requests += 1),
  };
  call.signal?.throwIfAborted();
  const answer = await remote.getProject(projectId, undefined, options);
  if (answer.notModified) {
    const context = { route: 'getProject', projectId };
    throw new MalformedResponseError(context, '304 Not Modified to a request without ETag');
  }
  const [members, resources, dependencies] = await Promise.all([
    remote.listMembers(projectId, options),
    remote.listResources(projectId, options),
    remote.listDependencies(projectId, options),
  ]);
  const changed = await mirror.listsPolled({
    project: answer.value,
    lists: { members, resources, dependencies },
  });
  return { projectId, requests, changed };
}
