/**
 * The store's port: what the engines ask of the database, as units of work that never hold up
 * the caller's thread. Each unit is one transaction or one read, sent with plain data and
 * answered with plain data; units run one at a time, in the order they were asked. The
 * implementation (`src/store/thread/`) runs where the connection is: on a store thread of its own
 * for a daemon's mirror, SQLite or PostgreSQL, or on the caller's thread for a connection it
 * holds. The engines on the main thread import this file only of the store (ESLint says so).
 */
import type { ChangeRateRow } from './change-rates.js';
import type {
  Project,
  CheckedEvent,
  RecordChange,
  Task,
  WriteRequest,
  WriteResponse,
} from '../domain/index.js';
import type { OutboxItem, OutboxState, OutboxSummary, Requeue } from './outbox.js';
import type { ProjectTimesRow } from './mirror-facts.js';
import type { IdentifiedRecord, RecordKind } from './project-records.js';
import type { CheckpointResult } from './wal.js';
import type { PagePollOutcome, PolledLists, PolledPage } from './writer/page-poll.js';
import type { ExampleAnswer } from './example-queries.js';

export type { CheckpointResult } from './wal.js';
export { OUTBOX_STATES, type OutboxItem, type OutboxState, type OutboxSummary } from './outbox.js';
export { errorText, parseBase, type Base } from './outbox-queue/item-texts.js';
export type { ExampleAnswer } from './example-queries.js';
export type { PagePollOutcome, PolledLists, PolledPage } from './writer/page-poll.js';
export { checkEnqueueInput, type Resolution } from './outbox-queue/queue.js';
import type { Resolution } from './outbox-queue/queue.js';
export { changeLine, type ChangeRow } from './changes.js';
export { budgetKey, STATE_KEYS } from './daemon-state.js';
export type { MirrorSpace } from './space.js';
export type { DaemonRow } from './postgres/coordination.js';
import type { MirrorSpace } from './space.js';
import type { DaemonRow } from './postgres/coordination.js';
import type { ProjectSummary } from './projects.js';
import type { SyncState } from './sync-state.js';
export { DEFAULT_LEASE_MS } from './thread/leases.js';
import type { ChangeRow } from './changes.js';
import type { ReportViewName, Row, ViewFilter, ViewRows } from './report-views.js';
export {
  REPORT_VIEW_NAMES,
  REPORT_VIEWS,
  type ReportViewName,
  type Row,
  type SqlValue,
  type ViewFilter,
  type ViewRows,
} from './report-views.js';

/** What an apply path did: wrote, found the mirror equal, or the project is not mirrored. */
export type ApplyOutcome = 'changed' | 'unchanged' | 'unknown_project';

/**
 * What one event of a batch came to (`applyEvents`): its outcome, or `malformed` with the
 * problem when its record did not check (nothing of it written; the others are).
 */
export type EventOutcome = ApplyOutcome | { malformed: string };

/**
 * One pass of one project in flight (`MirrorPort.passBegin`): its guard (what other writes do
 * meanwhile, which its commit leaves alone) and its tally live with it in the store.
 */
export interface Pass {
  readonly projectId: string;
  /** The project had a consistent pass before: this is not its backfill. */
  readonly baseline: boolean;
  /** The project's record as mirrored (JSON text), if any. */
  readonly heldProject: string | undefined;
  /** The ETag of that record, for a conditional get project. */
  readonly heldProjectEtag: string | undefined;
  /** The first step of a backfill: the project's record, and the backfill begun. */
  beginBackfill(project: Project): Promise<void>;
  /** A new full read begins: nothing seen yet, nothing shifted. */
  attemptBegin(): Promise<void>;
  /** True when another write created or deleted a task during the attempt. */
  shifted(): Promise<boolean>;
  /** The ETag and size of every kept page of the project at `pageSize`, by page. */
  keptHeads(pageSize: number): Promise<Array<[number, KeptHead]>>;
  /**
   * Where one attempt's pages go, in read order: kept for the commit, or (a backfill) kept and
   * applied as they come, as many at once as the store writes in one round trip.
   */
  pages(pageSize: number, backfill: boolean): PageSink;
  /** Surveys the kept pages and commits the read in one transaction; or the problem found. */
  commit(request: CommitRequest): Promise<string | undefined>;
  /** Ends the pass and its guard; what it wrote, and the tasks the mirror holds now. */
  end(): Promise<PassWritten>;
}

/** What a pass wrote, and the tasks the mirror holds for its project afterwards. */
export interface PassWritten {
  rows: number;
  history: number;
  tasks: number;
  /** The service's `updatedAt` (ms) of the tasks it changed or added, as far as it kept them. */
  changedAt: number[];
}

/** A page as the pager read it: its tasks (answered 200), or none (304: its kept copy stands). */
export type PageRead =
  | { page: number; notModified: false; etag: string | undefined; rows: Task[]; totalCount: number }
  | { page: number; notModified: true; totalCount: number | undefined };

/**
 * Takes an attempt's pages as the pager reads them, in read order, writing them behind its back
 * with one write in flight at most; a problem when a task of one was already seen in this read
 * (the collection moved), known once the next pages are read.
 */
export interface PageSink {
  /** Takes a page read; a problem when a write ended with one (the read then ends). */
  add(read: PageRead): Promise<PageProblem | undefined>;
  /** Every page taken written and every write ended: the first problem, if any. */
  finish(): Promise<PageProblem | undefined>;
  /** A read failed: what was taken is written still, and every write has ended (errors dropped). */
  abandon(): Promise<void>;
}

/** A kept page's ETag and size. */
export interface KeptHead {
  etag: string | null;
  rowCount: number;
}

/** Where a page of a pass goes: its place in the read, and its ETag. */
export interface PagePlace {
  pageSize: number;
  page: number;
  etag: string | undefined;
}

/** A task seen twice in one read: the page whose write found it, and the problem. */
export interface PageProblem {
  page: number;
  problem: string;
}

/** A consistent read, ready to be committed. */
export interface CommitRequest {
  projectId: string;
  project: Project;
  /** A new ETag of the project, when the pass read it with get project. */
  projectEtag: string | undefined;
  /** The first pass: its pages were applied (and seen) as they came; only deletions remain. */
  backfill: boolean;
  pageSize: number;
  lastPage: number;
  totalCount: number;
  lists: Record<RecordKind, IdentifiedRecord[]>;
}

/** The mirror's one writer, and the passes. */
export interface MirrorPort {
  /** Begins a pass of the project: its guard notes the writes meanwhile until `Pass.end`. */
  passBegin(projectId: string): Promise<Pass>;
  /** Records why a pass of the project failed; indexes a cold sync deferred are built. */
  passFailed(projectId: string, error: string): Promise<void>;
  /**
   * The ETag and row count of one kept page of the project at `pageSize` (a single-page poll);
   * `busy` while a pass of the project is in flight.
   */
  keptHead(
    projectId: string,
    pageSize: number,
    page: number,
  ): Promise<KeptHead | 'busy' | undefined>;
  /** A single page a poll read: written if it can be alone (never deleting), else why not. */
  pagePolled(polled: PolledPage): Promise<PagePollOutcome>;
  /** The project and its three lists a poll read whole: true when something changed. */
  listsPolled(polled: PolledLists): Promise<boolean>;
  applyEvent(event: CheckedEvent): Promise<ApplyOutcome>;
  /** Events that arrived together, in one transaction: each one's outcome, in their order. */
  applyEvents(events: readonly CheckedEvent[]): Promise<EventOutcome[]>;
  applyFetched(
    projectId: string,
    changes: readonly RecordChange[],
    route: string,
  ): Promise<ApplyOutcome>;
  projectIds(): Promise<string[]>;
  /** Projects the mirror holds rows or bookkeeping of. */
  knownProjectIds(): Promise<string[]>;
  taskCount(projectId: string): Promise<number>;
  hasProject(projectId: string): Promise<boolean>;
  removeProject(projectId: string): Promise<void>;
}

/** What claiming an item led to. */
export type Claim =
  | { kind: 'send'; item: OutboxItem; request: WriteRequest }
  | { kind: 'failed'; item: OutboxItem; error: string }
  | { kind: 'conflict'; item: OutboxItem; error: string }
  | { kind: 'gone' };

/** What a push does with an item the service changed since it was queued (`--on-conflict`). */
export type OnConflict = 'hold' | 'overwrite';

/** How a claim treats an item the service changed since it was queued (`--on-conflict`). */
export interface ClaimOptions {
  /** `hold` checks the item's base first (the default); `overwrite` sends it as queued. */
  onConflict: OnConflict;
}

/** An edit to queue. `body` is the JSON value of the op's body (`{}` when it takes none). */
export interface EnqueueInput {
  op: string;
  projectId: string;
  targetId?: string | null;
  body?: unknown;
  /** The label of the token to send it with; by default the token that reads the project. */
  tokenLabel?: string | null;
}

/** The new item's id and the idempotency key its creates will carry. */
export interface Enqueued {
  id: number;
  idempotencyKey: string;
}

/** What a push would do with one item. */
export interface DryRunStep {
  id: number;
  op: string;
  projectId: string;
  targetId: string | null;
  action: 'send' | 'conflict' | 'fail' | 'wait';
  /** The reason (fail, conflict) or the item waited for (wait); empty for send. */
  detail: string;
  /** Requests it would cost: the re-read of its target, and the write. */
  requests: number;
}

/** The outbox queue: each state change of an item one transaction. */
export interface OutboxPort {
  /**
   * Pending → sending with its request fixed; or failed without a request; or, its base checked
   * against the mirror in the same transaction, conflict; or gone.
   */
  claim(id: number, now: number, options?: ClaimOptions): Promise<Claim>;
  markFailed(item: OutboxItem, error: string, now: number): Promise<OutboxItem>;
  /** Done, with the answer written into the mirror (`mirrored`) in the same transaction. */
  markDone(
    item: OutboxItem,
    response: WriteResponse,
    now: number,
    mirrored: boolean,
  ): Promise<string | undefined>;
  requeue(id: number, requeue: Requeue, now: number): Promise<void>;
  setToken(id: number, label: string): Promise<void>;
  unfinishedByProject(): Promise<Array<[string, number]>>;
  recoverInterrupted(now: number): Promise<number>;
  heads(): Promise<OutboxItem[]>;
  enqueue(input: EnqueueInput, now: number): Promise<Enqueued>;
  projectsWithItems(): Promise<string[]>;
  /** Every item (or those in `state`), in queue order. */
  list(state?: OutboxState): Promise<OutboxItem[]>;
  /** A failed item back in the queue, or a pending one in backoff due now; others refused. */
  retry(id: number, now: number): Promise<void>;
  /** Removes a pending or failed item; others refused. */
  drop(id: number): Promise<void>;
  /** Resolves an item in conflict: keep the local edit or the service's values; the line saying how. */
  resolve(id: number, resolution: Resolution, now: number): Promise<string>;
  summary(now: number): Promise<OutboxSummary>;
  /** What a push would do with each unfinished item, in its order; changes nothing. */
  dryRun(onConflict: 'hold' | 'overwrite'): Promise<DryRunStep[]>;
}

/** The daemon's own bookkeeping (budgets, plan, start-up, the readers' time zone). */
export interface StatePort {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, at: string): Promise<void>;
  delete(key: string): Promise<void>;
  recordTimeZone(zone: string, nowMs: number): Promise<boolean>;
  /** Every polled item's kept change-rate evidence (`change_rates`). */
  changeRates(): Promise<ChangeRateRow[]>;
  /** Keeps the items' change-rate evidence, stamped `at`. */
  saveChangeRates(rows: ChangeRateRow[], at: string): Promise<void>;
  /** Forgets the change-rate evidence of `keys`. */
  deleteChangeRates(keys: string[]): Promise<void>;
}

/** What the daemon's plan, schedule and metrics read of the mirror; retention. */
export interface FactsPort {
  planFacts(): Promise<Array<{ id: string; taskCount: number; lastPassAt: number | undefined }>>;
  projectTimes(): Promise<ProjectTimesRow[]>;
  pruneHistory(now: number, days: number): Promise<number>;
  /** Deletes the change feed's rows older than `days` before `now`; the rows removed. */
  pruneChanges(now: number, days: number): Promise<number>;
  /** Gives the file's free pages back after a prune (SQLite `incremental_vacuum`); how many. */
  reclaimSpace(): Promise<number>;
}

/** The store's proof of life. */
export interface HealthPort {
  /** Takes and gives back the write lock; waits, as writes do, while another writer holds it. */
  probeWrite(): Promise<void>;
  /**
   * A checkpoint of SQLite's write-ahead log (`src/store/wal.ts`): copies what it can and starts
   * the log over when no reader is in it. Undefined on PostgreSQL.
   */
  checkpoint(): Promise<CheckpointResult | undefined>;
}

/** The demo's example queries, named in the store (`example-queries.ts`). */
export interface ExamplesPort {
  /** Runs every example; each one's title, SQL text (to show) and answer, in order. */
  all(): Promise<ExampleAnswer[]>;
}

/** The change feed's reading side (`projmirror changes`, docs/changes.md). */
export interface ChangesPort {
  /** A usage error naming the mirror `name` when it has no change feed yet (an older schema). */
  check(name: string): Promise<void>;
  /** The changes after `since`, at most `limit`, in `seq` order. */
  after(since: number, limit: number): Promise<ChangeRow[]>;
  /** The last `seq` retention has pruned; 0 when it never pruned any. */
  prunedThrough(): Promise<number>;
  /** The oldest `seq` kept, if any is. */
  oldestKept(): Promise<number | undefined>;
}

/** What `status` reads of the mirror, as it is stored: the engines' own records, no SQL. */
export interface StatusFacts {
  /** The saved state `status` shows, by key: plan, routing, budget, startup, each token's budget. */
  state: Record<string, unknown>;
  /** Each project's sync state. */
  sync: SyncState[];
  /** Each project mirrored, with its task count and read-only reason. */
  projects: ProjectSummary[];
  /** On a PostgreSQL mirror: every daemon registered; undefined on SQLite. */
  daemons: DaemonRow[] | undefined;
  /** The space the mirror takes, when it has a file. */
  space: MirrorSpace | undefined;
  /** The outbox's counts by state, and its oldest pending item's age at the time asked. */
  outbox: OutboxSummary;
}

/** What `projmirror status` reads. */
export interface StatusPort {
  /** The facts `status` shows, at `now` (ms). */
  facts(now: number): Promise<StatusFacts>;
}

/** Which rows a report reads: every project's or one's, and at most `limit` of each list. */
export interface ReportOptions extends ViewFilter {
  /** At most this many projects, and this many overdue tasks. */
  limit?: number | undefined;
}

/** What `report` shows: `v_project_progress` and `v_overdue_tasks` rows, as of `day`. */
export interface ReportRows {
  /** Today as the views saw it: tasks ending before it and not done are overdue. */
  day: string;
  /** The time zone today is taken in. */
  timezone: string;
  progress: ViewRows;
  overdue: ViewRows;
  /** Projects and overdue tasks in all, `--limit` or not. */
  totals: { projects: number; overdue: number };
}

/** What the HTML report reads: today, two views whole, and each project's page of rows. */
export interface HtmlReportRows {
  day: string;
  timezone: string;
  /** `v_task_status_daily`, every project's listed. */
  daily: Row[];
  /** `v_member_week_load`, every project's listed. */
  weekly: Row[];
  /** Each project listed (by name, at most `limit`): its progress, its first overdue tasks. */
  projects: Array<{ progress: Row; overdue: Row[] }>;
  /** The outbox items waiting in conflict (`v_outbox_conflicts`), in queue order. */
  conflicts: Row[];
}

/** A view's columns and their declared types (`BOOLEAN`, `DATE`...), before any row. */
export interface ViewHead {
  columns: string[];
  types: Record<string, string>;
}

/**
 * One snapshot of the reporting views (`ReportsPort.snapshot`): every view read through it sees
 * one state of the mirror, its rows handed over a batch at a time, never all at once.
 */
export interface ViewSnapshot {
  /** Starts reading `view` (one project's rows with `projectId`) in its stable order. */
  read(view: ReportViewName, filter: ViewFilter): Promise<ViewHead>;
  /** The next rows of the view being read, at most `max`; fewer only at its end. */
  next(max: number): Promise<Row[]>;
  /** Ends the snapshot; called once, whatever happened. */
  end(): Promise<void>;
}

/** What `report` and `export` read of the mirror's reporting views, as rows (docs/schema.md). */
export interface ReportsPort {
  /** A usage error naming `projectId` when the mirror does not hold it. */
  checkProject(projectId: string | undefined): Promise<void>;
  /** The report's rows, read in one snapshot. */
  report(options: ReportOptions): Promise<ReportRows>;
  /** The HTML report's rows, read in one snapshot; at most `overdueRows` overdue tasks a project. */
  html(options: ReportOptions & { overdueRows: number }): Promise<HtmlReportRows>;
  /** Opens a snapshot to read views through, for `export`. */
  snapshot(): Promise<ViewSnapshot>;
}

/** Units waiting for the store (health is judged by the daemon's write probe, not here). */
export interface StoreProgress {
  /** Units asked and not yet answered. */
  depth: number;
  /** When the oldest of them was asked (ms since the epoch), if any waits. */
  oldestAskedAt: number | undefined;
}

/** The mirror's store: every port, its progress, and `close()`. Built once, by the composition root. */
export interface Store {
  readonly mirror: MirrorPort;
  readonly outbox: OutboxPort;
  readonly state: StatePort;
  readonly facts: FactsPort;
  readonly health: HealthPort;
  readonly examples: ExamplesPort;
  readonly changes: ChangesPort;
  readonly status: StatusPort;
  readonly reports: ReportsPort;
  progress(): StoreProgress;
  /**
   * Closes the connection once the units asked are answered, or at once (`abandon`): a unit in
   * hand is then left to the database to roll back.
   */
  close(options?: { abandon?: boolean }): Promise<void>;
}
