/**
 * The log of a project that stays broken: rate-limited per cause, not a line per attempt. The
 * first failure of a cause is logged; while the project keeps failing for that cause, at most
 * one line each `BROKEN_PROJECT_LOG_MS` (with the failures meanwhile); a new cause is logged at
 * once; the first pass after failures says so in one line. A full disk is the disk watch's to log
 * (`DiskWatch`, once a minute at most), so a pass it failed is logged here at debug only.
 */
import type { Logger } from 'pino';
import { DISK_FULL, type Clock } from '../domain/index.js';

/** While a project keeps failing for the same cause, at most one line this often. */
export const BROKEN_PROJECT_LOG_MS = 60 * 60_000;

/** A failed pass as this log needs it. */
export interface FailedPass {
  projectId: string;
  /** The error, one line. */
  error?: string;
  /** Its stable code (`disk_full`, `http_500`, ...); the error line stands for it when absent. */
  errorCode?: string;
}

interface Broken {
  cause: string;
  since: number;
  loggedAt: number;
  /** Failures since the last line. */
  unlogged: number;
  failures: number;
}

/** Logs failed passes per project and cause; see the module comment. */
export class FailureLog {
  private readonly broken = new Map<string, Broken>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly everyMs = BROKEN_PROJECT_LOG_MS,
  ) {}

  /** A pass of `pass.projectId` failed. */
  failed(pass: FailedPass): void {
    const now = this.clock.now();
    const cause = causeOf(pass);
    const fields = { projectId: pass.projectId, err: pass.error };
    const known = this.broken.get(pass.projectId);
    if (known === undefined || known.cause !== cause) {
      this.broken.set(pass.projectId, {
        cause,
        since: known?.since ?? now,
        loggedAt: now,
        unlogged: 0,
        failures: (known?.failures ?? 0) + 1,
      });
      if (cause === DISK_FULL) this.logger.debug(fields, 'pass failed');
      else this.logger.warn(fields, 'pass failed');
      return;
    }
    known.failures += 1;
    known.unlogged += 1;
    if (cause === DISK_FULL || now - known.loggedAt < this.everyMs) return;
    this.logger.warn({ ...fields, failures: known.unlogged }, 'pass still failing');
    known.loggedAt = now;
    known.unlogged = 0;
  }

  /**
   * Projects gone from the mirror (a reconcile removed them): their failures are forgotten, so
   * that one shared again starts afresh (its first failure logged as such), and none is kept.
   */
  forget(projectIds: readonly string[]): void {
    for (const projectId of projectIds) this.broken.delete(projectId);
  }

  /** A pass of `projectId` committed: one line if it had been failing. */
  passed(projectId: string): void {
    const known = this.broken.get(projectId);
    if (known === undefined) return;
    this.broken.delete(projectId);
    const fields = {
      projectId,
      failures: known.failures,
      failedMs: this.clock.now() - known.since,
    };
    // After a full disk, the disk watch's one line says it for every project.
    if (known.cause === DISK_FULL) this.logger.debug(fields, 'pass succeeded again');
    else this.logger.info(fields, 'pass succeeded again');
  }
}

function causeOf(pass: FailedPass): string {
  const code = pass.errorCode;
  return code === undefined || code === 'internal' ? (pass.error ?? 'internal') : code;
}
