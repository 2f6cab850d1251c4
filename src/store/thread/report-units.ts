/**
 * What `report` and `export` read of the mirror, read where the connection is: the report's rows,
 * the HTML report's, and the snapshots an export reads its views through, each one a group of
 * units of its own (`ViewSnapshotUnits`) until it ends.
 */
import { UsageError } from '../../domain/index.js';
import { connectionOf, inSnapshot, inTransaction, type MirrorHandle } from '../handle.js';
import type { HtmlReportRows, ReportOptions, ReportRows, ViewHead } from '../port.js';
import {
  iterateView,
  readOutboxConflicts,
  readView,
  reportToday,
  type ReportViewName,
  type Row,
  type ViewFilter,
} from '../report-views.js';

/** The report's orders: projects by name, their overdue tasks by end date. */
const PROGRESS_ORDER = 'lower(project_name), project_id';
const OVERDUE_ORDER = 'lower(project_name), project_id, end_date, task_name, task_id';
/** The HTML report's orders: its pages by project name, a page's overdue tasks by end date. */
const PAGE_ORDER = 'lower(project_name)';
const PAGE_OVERDUE_ORDER = 'end_date, task_name, task_id';

/** Reads the reporting views of one mirror, opened for reading. */
export class ReportUnits {
  private readonly mirror: MirrorHandle;
  private readonly snapshots: SnapshotGroups;

  constructor(mirror: MirrorHandle, snapshots: SnapshotGroups) {
    this.mirror = mirror;
    this.snapshots = snapshots;
  }

  /** A usage error naming `projectId` when the mirror does not hold it. */
  async checkProject(projectId: string | undefined): Promise<void> {
    if (projectId === undefined) return;
    const found = await connectionOf(this.mirror)
      .prepare('SELECT 1 FROM projects WHERE id = ?')
      .pluck()
      .get(projectId);
    if (found === undefined) throw new UsageError(`--project ${projectId} is not in the mirror`);
  }

  /** The report's rows of every project, or of `options.projectId`, in one read transaction. */
  report(options: ReportOptions): Promise<ReportRows> {
    const mirror = this.mirror;
    return inTransaction(mirror, async () => {
      const all = await readView(mirror, 'v_project_progress', options, PROGRESS_ORDER);
      const overdue = all.rows.reduce((sum, row) => sum + Number(row['overdue'] ?? 0), 0);
      const { limit } = options;
      return {
        ...(await reportToday(mirror)),
        progress: { ...all, rows: all.rows.slice(0, limit) },
        overdue: await readView(mirror, 'v_overdue_tasks', options, OVERDUE_ORDER, limit),
        totals: { projects: all.rows.length, overdue },
      };
    });
  }

  /** The HTML report's rows of every project (or `options.projectId`'s) in one read transaction. */
  html(options: ReportOptions & { overdueRows: number }): Promise<HtmlReportRows> {
    const mirror = this.mirror;
    const filter = { projectId: options.projectId };
    return inTransaction(mirror, async () => {
      const today = await reportToday(mirror);
      const daily = (await readView(mirror, 'v_task_status_daily', filter)).rows;
      const weekly = (await readView(mirror, 'v_member_week_load', filter)).rows;
      const listed = await readView(mirror, 'v_project_progress', filter, PAGE_ORDER);
      const projects = [];
      for (const progress of listed.rows.slice(0, options.limit)) {
        const { rows } = await readView(
          mirror,
          'v_overdue_tasks',
          { projectId: String(progress['project_id']) },
          PAGE_OVERDUE_ORDER,
          options.overdueRows,
        );
        projects.push({ progress, overdue: rows });
      }
      return { ...today, daily, weekly, projects, conflicts: await readOutboxConflicts(mirror) };
    });
  }

  /** Opens a snapshot of the views (one read transaction) as a group of units; its name. */
  async snapshot(): Promise<{ group: string }> {
    const snapshot = new ViewSnapshotUnits(this.mirror);
    await snapshot.begin();
    return { group: this.snapshots.open(snapshot) };
  }
}

/**
 * One snapshot of the reporting views, on the store's side: its read transaction stays open
 * across its units (on PostgreSQL with the idle-in-transaction timeout lifted, `inSnapshot`), and
 * the view it reads is a cursor there, whose rows `next` hands over a batch at a time.
 */
export class ViewSnapshotUnits {
  private readonly mirror: MirrorHandle;
  private rows: AsyncIterableIterator<Row> | undefined;
  private finish: () => void = () => {};
  private done: Promise<void> = Promise.resolve();
  private close: () => void = () => {};

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
  }

  /** Begins the read transaction; resolves once it is open (or rejects when it cannot open). */
  async begin(): Promise<void> {
    const ended = new Promise<void>((resolve) => (this.finish = resolve));
    let opened!: () => void;
    const begun = new Promise<void>((resolve) => (opened = resolve));
    this.done = inSnapshot(this.mirror, async () => {
      opened();
      await ended;
    });
    // Awaited by `end`; a failure meanwhile waits for it there, not as an unhandled rejection.
    this.done.catch(() => {});
    await Promise.race([begun, this.done]);
  }

  /** Joins the host as group `group`, which `end` leaves (`SnapshotGroups`). */
  joined(leave: () => void): void {
    this.close = leave;
  }

  /** Starts reading `view` (one project's rows with `projectId`) in its stable order. */
  async read(view: ReportViewName, filter: ViewFilter): Promise<ViewHead> {
    await this.stopReading();
    const { columns, types, rows } = await iterateView(this.mirror, view, filter);
    this.rows = rows;
    return { columns, types };
  }

  /** The next rows of the view being read, at most `max`; fewer only at its end. */
  async next(max: number): Promise<Row[]> {
    const batch: Row[] = [];
    while (this.rows !== undefined && batch.length < max) {
      const step = await this.rows.next();
      if (step.done === true) this.rows = undefined;
      else batch.push(step.value);
    }
    return batch;
  }

  /** Ends the snapshot: the view's cursor closed, the read transaction ended, the group left. */
  async end(): Promise<void> {
    try {
      // An open statement would make the transaction's end fail and mask the real error.
      await this.stopReading();
    } finally {
      this.finish();
      this.close();
      await this.done;
    }
  }

  private async stopReading(): Promise<void> {
    const rows = this.rows;
    this.rows = undefined;
    await rows?.return?.();
  }
}

/** Where the snapshots open are found as groups of units: on the host, beside its own groups. */
export class SnapshotGroups {
  private host: Record<string, object> | undefined;
  private next = 1;

  /** The host the snapshots' groups join (`createHost`). */
  attach(host: Record<string, object>): void {
    this.host = host;
  }

  /** Adds `snapshot` as a group of units until it ends; the group's name. */
  open(snapshot: ViewSnapshotUnits): string {
    const host = this.host;
    if (host === undefined) throw new Error('snapshots opened before the host was built');
    const group = `snapshot:${this.next++}`;
    snapshot.joined(() => delete host[group]);
    host[group] = snapshot;
    return group;
  }
}
