/** Every repository of the mirror over one connection, with the transaction that groups them. */
import { connectionOf, type MirrorHandle } from './handle.js';
import type { Db } from './database.js';
import { dialectOf } from './db.js';
import { FieldCatalog } from './data-fields.js';
import { DeferredObjects } from './deferred-objects.js';
import { ProjectRecordsRepository, type RecordKind } from './project-records.js';
import { ProjectsRepository } from './projects.js';
import { SeenTasks } from './seen-tasks.js';
import { SurveyPages } from './survey-pages.js';
import { SyncStateRepository } from './sync-state.js';
import { TaskHistoryRepository } from './task-history.js';
import { TaskPagesRepository } from './task-pages.js';
import { TaskWriter } from './task-writer.js';
import { refreshWideViews } from './wide-views.js';

/** The repositories of one connection; statements are prepared once, here. */
export class MirrorStore {
  private readonly db: Db;
  readonly projects: ProjectsRepository;
  /** The one writer of tasks (and their reads). */
  readonly tasks: TaskWriter;
  readonly history: TaskHistoryRepository;
  readonly records: Readonly<Record<RecordKind, ProjectRecordsRepository>>;
  readonly syncState: SyncStateRepository;
  readonly taskPages: TaskPagesRepository;
  readonly seenTasks: SeenTasks;
  /** The fields of `data` this connection knows, for the wide views. */
  readonly fields: FieldCatalog;
  /** What a cold sync builds once, at its commit: secondary indexes, the full-text insert trigger. */
  readonly deferred: DeferredObjects;
  /** PostgreSQL: kept pages surveyed ten a statement, not a snapshot of round trips a page. */
  readonly surveyPages: SurveyPages | undefined;

  constructor(mirror: MirrorHandle) {
    const db = connectionOf(mirror);
    this.db = db;
    this.fields = new FieldCatalog(db);
    this.deferred = new DeferredObjects(db);
    this.history = new TaskHistoryRepository(db);
    this.projects = new ProjectsRepository(db);
    this.seenTasks = new SeenTasks(db);
    this.tasks = new TaskWriter(db, this.history, this.seenTasks);
    this.records = {
      members: new ProjectRecordsRepository(db, 'members'),
      resources: new ProjectRecordsRepository(db, 'resources'),
      dependencies: new ProjectRecordsRepository(db, 'dependencies'),
    };
    this.syncState = new SyncStateRepository(db);
    this.taskPages = new TaskPagesRepository(db);
    // SQLite has no round trips to save: its paths run statement by statement.
    const postgres = dialectOf(db) === 'postgres';
    this.surveyPages = postgres ? new SurveyPages(db) : undefined;
  }

  /**
   * Runs `fn` in one write transaction, begun IMMEDIATE so it never fails half-way on a lock;
   * inside another transaction it nests as a savepoint. Readers see all of it or none.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn, 'immediate');
    } catch (error) {
      // Fields it noted may have been rolled back with it.
      this.fields.forget();
      throw error;
    }
  }

  /**
   * Runs `fn` in a deferred transaction: one stable snapshot for its reads, and writes to TEMP
   * tables only, so it takes no lock that would hold up the mirror's writers.
   */
  snapshot<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn, 'deferred');
  }

  /** Makes each wide view match the fields known now; inside the caller's write transaction. */
  async refreshWideViews(): Promise<void> {
    await refreshWideViews(this.db);
  }

  /** Deletes a project with everything mirrored and kept for it. */
  removeProject(projectId: string): Promise<void> {
    return this.transaction(async () => {
      // The kept pages first: a task deleted while one holds it by reference saves its text.
      await this.taskPages.remove(projectId);
      await this.projects.remove(projectId);
      await this.syncState.remove(projectId);
      await this.seenTasks.clear(projectId);
    });
  }
}
