/**
 * The daemon's defaults that the command line's options show. A module of its own, importing
 * nothing: reading any command's options loads no schedule or metrics library.
 */

/** 00:15 UTC: shortly after the quota day resets (midnight UTC unless configured otherwise). */
export const DEFAULT_RECONCILE_CRON = '15 0 * * *';
/** `task_history` rows older than this are pruned once a day. */
export const DEFAULT_HISTORY_RETENTION_DAYS = 365;
/** Days the change feed's rows are kept (`--changes-retention-days`, contract section 8). */
export const DEFAULT_CHANGES_RETENTION_DAYS = 30;
/** The zone the expression is read in when none is given. */
export const DEFAULT_SCHEDULE_TIMEZONE = 'UTC';
/** A reader blocking the write-ahead log's checkpoints this long is warned of, in minutes. */
export const DEFAULT_CHECKPOINT_BLOCKED_MINUTES = 10;
/** The address the metrics endpoint listens on unless told otherwise: this machine only. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';
