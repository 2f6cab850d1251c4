/** The demo's example queries, run where the connection is. */
import { runExamples, type ExampleAnswer } from '../example-queries.js';
import type { MirrorHandle } from '../handle.js';

/** Runs the store's read-only example queries over one mirror. */
export class ExampleUnits {
  private readonly mirror: MirrorHandle;

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
  }

  /** Every example's answer, in order. */
  all(): Promise<ExampleAnswer[]> {
    return runExamples(this.mirror);
  }
}
