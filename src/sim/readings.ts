/**
 * The readings of what the service spec leaves open (product contract section 4): one switch per
 * choice the real service may make differently, so the daemon can be tested against each.
 */

/** When a token's integration identity (spec 2 "Member", 5.5) joins a project's roster. */
export type IdentityReading = 'first-write' | 'first-request';
/** How a write that changes several records is announced on the realtime channel. */
export type AnnouncementReading = 'one-message' | 'per-record';
/** How a repeated `Idempotency-Key`'s body is compared with the first one. */
export type IdempotencyReading = 'bytes' | 'json';
/** The status answering a task, resource or dependency of a project the token cannot see. */
export type HiddenRecordReading = 403 | 404;
/** Which progress-to-status (and status-to-progress) mapping derives the missing field. */
export type StatusMappingReading = 'contract' | 'coarse';

/** One value for each open choice; `DEFAULT_READINGS` is what the simulator has always done. */
export interface SimReadings {
  /**
   * `first-write`: created by the token's first successful write to the project.
   * `first-request`: created by its first admitted request of any kind to the project (a read
   * such as list tasks or list members included, read-only projects too). Either way announced
   * as `member.changed` with the member's data.
   */
  identity: IdentityReading;
  /**
   * `one-message`: set dependencies sends one `dependency.changed` without `id` or data.
   * `per-record`: one `dependency.changed` per added or changed dependency (with data) and per
   * removed one (without data); nothing when the set is unchanged.
   */
  setDependencies: AnnouncementReading;
  /**
   * `one-message`: reorder sends one `project.updated` (with the project's data).
   * `per-record`: one `task.updated` (with the task's data) per task whose position changed, in
   * the new order; the records themselves (`updatedAt` included) do not change.
   */
  reorder: AnnouncementReading;
  /** `bytes`: byte-identical bodies replay. `json`: bodies equal as parsed JSON replay. */
  idempotency: IdempotencyReading;
  /** 403 `forbidden`, or 404 `not_found` as if the record did not exist. */
  hiddenRecord: HiddenRecordReading;
  /**
   * `contract`: progress 0 is NotStarted, 1-99 InProgress, 100 Done; status alone sets 0, keeps
   * 1-99 (else 1 or 99), 100. `coarse`: progress below 50 is NotStarted, 50 to below 100
   * InProgress, 100 Done; status alone sets NotStarted 0, InProgress 50, Done 100. Either way
   * another status keeps the progress, and both fields sent are stored as sent.
   */
  statusMapping: StatusMappingReading;
}

/** The values each switch accepts, the default first. */
export const READING_CHOICES = {
  identity: ['first-write', 'first-request'],
  setDependencies: ['one-message', 'per-record'],
  reorder: ['one-message', 'per-record'],
  idempotency: ['bytes', 'json'],
  hiddenRecord: [403, 404],
  statusMapping: ['contract', 'coarse'],
} as const satisfies { [K in keyof SimReadings]: readonly [SimReadings[K], SimReadings[K]] };

/** Today's behaviour: identity on the first write, one message each, bytes, 403, contract. */
export const DEFAULT_READINGS: Readonly<SimReadings> = Object.freeze({
  identity: 'first-write',
  setDependencies: 'one-message',
  reorder: 'one-message',
  idempotency: 'bytes',
  hiddenRecord: 403,
  statusMapping: 'contract',
});

/** Every switch set to its other value. */
export const ALTERNATE_READINGS: Readonly<SimReadings> = Object.freeze({
  identity: 'first-request',
  setDependencies: 'per-record',
  reorder: 'per-record',
  idempotency: 'json',
  hiddenRecord: 404,
  statusMapping: 'coarse',
});

const SWITCHES = Object.keys(DEFAULT_READINGS) as (keyof SimReadings)[];

/**
 * Named reading sets for tests to iterate over: `default`, `alternate`, then one per switch
 * flipped alone, named `switch=value` (for example `identity=first-request`).
 */
export const READING_PROFILES: ReadonlyArray<readonly [string, Readonly<SimReadings>]> =
  Object.freeze([
    ['default', DEFAULT_READINGS] as const,
    ['alternate', ALTERNATE_READINGS] as const,
    ...SWITCHES.map((name) => {
      const value = ALTERNATE_READINGS[name];
      return [`${name}=${value}`, Object.freeze({ ...DEFAULT_READINGS, [name]: value })] as const;
    }),
  ]);
