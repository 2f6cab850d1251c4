/**
 * When the simulator last answered a read of each part of each project, from its request log:
 * each page of its tasks, its own record (get project, or the listing of projects) and each side
 * list. Tests and benchmarks check the daemon's staleness bound on it: the oldest of a project's
 * parts is how stale the mirror's copy of that project may be, whatever the daemon believes.
 */
import type { RequestLogView } from './request-log.js';

/** A project's parts besides its task pages: its record and the three side lists. */
const RECORD_PARTS = ['getProject', 'listMembers', 'listResources', 'listDependencies'] as const;

/** The last read of every part, kept up to date from the request log by `update`. */
export class PartReads {
  /** `<project>/p<k>` or `<project>/<route>` to the time of its last read. */
  private readonly last = new Map<string, number>();
  private seen = 0;

  /** `projectIds`: the projects a listing of projects reads the records of. */
  constructor(
    private readonly log: Pick<RequestLogView, 'entries' | 'total'>,
    private readonly projectIds: readonly string[],
  ) {}

  /** Reads the log's entries answered since the last update (200 or 304). */
  update(): void {
    const { entries, total } = this.log;
    const fresh = entries.slice(Math.max(0, entries.length - (total - this.seen)));
    this.seen = total;
    for (const entry of fresh) {
      if (entry.status !== 200 && entry.status !== 304) continue;
      if (entry.route === 'listProjects') {
        for (const id of this.projectIds) this.last.set(`${id}/getProject`, entry.time);
        continue;
      }
      const url = new URL(entry.path, 'http://sim');
      const project = /\/projects\/([^/]+)/.exec(url.pathname)?.[1];
      if (project === undefined) continue;
      const part =
        entry.route === 'listTasks' ? `p${url.searchParams.get('page') ?? '1'}` : entry.route;
      this.last.set(`${decodeURIComponent(project)}/${part}`, entry.time);
    }
  }

  /** The oldest last read of the parts of a project of `tasks` tasks read `pageSize` a page. */
  oldest(projectId: string, tasks: number, pageSize: number): number {
    const parts: string[] = [...RECORD_PARTS];
    const pages = Math.max(1, Math.ceil(tasks / pageSize));
    for (let page = 1; page <= pages; page += 1) parts.push(`p${page}`);
    return Math.min(...parts.map((part) => this.last.get(`${projectId}/${part}`) ?? -Infinity));
  }
}
