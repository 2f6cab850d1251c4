/**
 * A pass as the engine on the main thread holds it (`Pass`, the port's): the handle of a
 * `StorePass`, whose guard and tally live with it on the store thread. Each call is one of its
 * units; where an attempt's pages go (`pages`) is the store's choice too: kept for the commit, or
 * applied as they come, as many at once as the store writes in one round trip.
 */
import type { Project } from '../../domain/index.js';
import type { CommitRequest, KeptHead, PageSink, Pass, PassWritten } from '../port.js';
import { BackfillWriter, PageWrites, StagingWriter } from './page-sink.js';
import type { PassOpened, StorePass } from './pass-units.js';
import type { AsyncGroup } from './units.js';

/** The handle of one pass in flight. */
export class PassHandle implements Pass {
  readonly projectId: string;
  readonly baseline: boolean;
  readonly heldProject: string | undefined;
  readonly heldProjectEtag: string | undefined;
  private readonly units: AsyncGroup<StorePass>;
  private readonly pagesPerWrite: number;

  constructor(projectId: string, opened: PassOpened, units: AsyncGroup<StorePass>) {
    this.projectId = projectId;
    this.baseline = opened.baseline;
    this.heldProject = opened.heldProject;
    this.heldProjectEtag = opened.heldProjectEtag;
    this.pagesPerWrite = opened.pagesPerWrite;
    this.units = units;
  }

  beginBackfill(project: Project): Promise<void> {
    return this.units.beginBackfill(project);
  }

  attemptBegin(): Promise<void> {
    return this.units.attemptBegin();
  }

  shifted(): Promise<boolean> {
    return this.units.shifted();
  }

  keptHeads(pageSize: number): Promise<Array<[number, KeptHead]>> {
    return this.units.keptHeads(pageSize);
  }

  pages(pageSize: number, backfill: boolean): PageSink {
    const target = { units: this.units, pageSize };
    return new PageWrites(
      backfill ? new BackfillWriter(target, this.pagesPerWrite) : new StagingWriter(target),
    );
  }

  commit(request: CommitRequest): Promise<string | undefined> {
    return this.units.commit(request);
  }

  end(): Promise<PassWritten> {
    return this.units.end();
  }
}
