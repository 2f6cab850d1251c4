/** The demo's example queries, run where the connection is. */
import type { MirrorHandle } from '../store/handle.js';
import { queryRows, type QueryRows } from '../store/query.js';

/** Runs read-only example queries over one mirror. */
export class ExampleUnits {
  private readonly mirror: MirrorHandle;

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
  }

  /** The column names and rows (as arrays) of `sql`. */
  rows(sql: string): Promise<QueryRows> {
    return queryRows(this.mirror, sql);
  }
}
