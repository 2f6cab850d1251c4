/**
 * The simulator of the project-scheduling service (service-spec.md, product contract sections
 * 4-6), served over real HTTP(S) and WebSocket on loopback for tests, benchmarks and the demo.
 *
 * ```ts
 * const sim = await startSimulator({ projects: 2, tasks: 50, tls: true, burst: 10 });
 * // sim.baseUrl     'https://127.0.0.1:PORT/v1'      sim.realtimeUrl 'wss://127.0.0.1:PORT/v1/realtime'
 * // sim.caFile/ca   the CA (PEM) to trust            sim.token       an account token of the seeded user
 * sim.service.createTask('p_1', { name: 'Pour concrete' }); // broadcast like an API write
 * sim.faults.failNext({ route: 'listTasks', kind: 'status', status: 503, count: 2 });
 * sim.faults.beforePage('p_1', 2, () => sim.service.deleteTask('t_1'));
 * sim.requestLog.count({ route: 'listTasks', status: 304 });
 * await sim.close();
 * ```
 *
 * Behaviour the documents leave open, as the simulator implements it. Where the product contract
 * (section 4) names a choice the real service may make differently, a switch of
 * `options.readings` picks it (`SimReadings`; `READING_PROFILES` names sets of them for tests to
 * iterate over); the default, `DEFAULT_READINGS`, is written first below, the other in brackets.
 * - Paths are `DEFAULT_ROUTES` under `/v1`; an unknown path is 404 `not_found`, a known path
 *   with another method 405 `method_not_allowed` (neither counted nor authenticated).
 * - `pageSize` defaults to 100 (max 500); `page` and `pageSize` must be one positive integer
 *   each, else 400. A page past the end is an empty array. Only `page`/`pageSize` are read.
 * - ETags (list tasks pages, get project) are strong: a hash of the exact body, so a page's
 *   ETag depends only on its rows. `If-None-Match` uses weak comparison and accepts `*`.
 * - Auth: a missing or unknown bearer token is 401 (with `WWW-Authenticate: Bearer`). A project
 *   that does not exist is 404; one the token cannot see is 403 `forbidden`; records reached by
 *   id (tasks, resources, dependencies) of a hidden project answer 403 `forbidden`
 *   [`hiddenRecord: 404`: 404 `not_found`, as if the record did not exist].
 * - Order of checks: route, faults, health, IP limit, token, quota, burst, body
 *   (415 `unsupported_media_type` unless `Content-Type: application/json`, 400 for bad JSON,
 *   413 above 16 MiB), project access, idempotency, read-only, validation.
 * - Limits: a request refused with 429 counts against nothing; every admitted request counts
 *   against its IP, and every authenticated admitted one against its token's burst window and
 *   quota (304 and 4xx included). `Retry-After` is the window in seconds for `rate_limited` and
 *   `ip_rate_limited`, the HTTP date of the next reset (rounded up to the second) for
 *   `quota_exceeded`. Quota days start at `dayEpochMs` (midnight UTC) and last `dayMs`.
 *   `X-Quota-Limit`/`X-Quota-Remaining` (remaining after this request) are on every counted
 *   response and on the token's own 429s; `limits: false` turns limits and headers off.
 * - `GET /v1/health` (`{"status":"ok"}`) and CORS preflights need no token and count nowhere.
 * - Idempotency: keys are scoped to (token, project); a key replays only for the same operation
 *   and byte-identical body [`idempotency: 'json'`: a body equal as parsed JSON, whatever its
 *   key order and whitespace] (else 409); only 2xx answers are cached, for the simulator's life;
 *   replays carry `Idempotent-Replayed: true` and broadcast nothing.
 * - Validation (400 `validation_failed`): unknown body fields are ignored; create task needs a
 *   non-empty `name` and `status`, real `startDate`/`endDate` (their order is not checked);
 *   `progress` is a number 0..100; `assigneeIds` distinct members of the project. Create with
 *   `status` alone derives `progress` as an update from progress 0 would. An update must set at
 *   least one of name, startDate, endDate, status, progress, assigneeIds.
 * - Derivation: progress alone gives 0 NotStarted, 1-99 InProgress, 100 Done; status alone gives
 *   NotStarted 0, Done 100, InProgress the progress kept within 1-99 [`statusMapping: 'coarse'`:
 *   below 50 NotStarted, 50-99 InProgress, 100 Done; InProgress alone gives 50]. Other statuses
 *   keep the progress.
 * - Integration identity: created (and announced as `member.changed` with its data) by the
 *   first successful write of a token on a project (reads and refused writes change nothing, so
 *   a read-only project never gets one) [`identity: 'first-request'`: by its first admitted
 *   request of any kind to the project, reads and read-only projects included; list projects
 *   names no project]; member `{id, name: "<label> (integration)", kind: "integration"}`.
 *   Tasks a script creates without `assigneeIds` are unassigned.
 * - Reorder (`{"taskIds": [...]}`, 204): the listed tasks take the positions they occupy now,
 *   in the listed order; others keep theirs. Announced as one `project.updated`
 *   [`reorder: 'per-record'`: one `task.updated` with data per task that moved, records
 *   unchanged].
 * - Set dependencies replaces the set (200 with the new set); an item keeps a given `id`, else
 *   the id of an existing dependency between the same tasks, else a new one; one
 *   `dependency.changed` without `id` is sent [`setDependencies: 'per-record'`: one per removed
 *   dependency without data, then one per added or changed one with data]. Dependency `type`
 *   defaults to `FS`; a pair of tasks has at most one dependency; deleting a task removes its
 *   dependencies.
 * - Delete operations answer 204; create operations 201 (create task also `Location`).
 * - Events: `task.created|updated` and `*.changed`/`project.updated` carry `data` (the record
 *   after the write); deletions and set-dependencies carry none.
 * - Scripted writes (`sim.service`) follow the API's validation and derivation rules and are
 *   broadcast, but are not refused on read-only projects and count against no limit.
 * - Faults that fail a request answer before auth and limits (they cost no quota);
 *   `commitThenDrop` and delays run the request normally. Delays are real time.
 * - Every answer carries `X-Trace-Id`, WebSocket upgrades (101 and refusals) included.
 */
export { startSimulator, type LimitsControl, type Simulator } from './simulator.js';
export * from './options.js';
export * from './readings.js';
export type {
  DelayRule,
  FaultControl,
  FaultKind,
  FaultRequest,
  FaultRule,
  FaultTarget,
  PageHook,
} from './faults.js';
export type { RequestLogEntry, RequestLogFilter, RequestLogView } from './request-log.js';
export { PartReads } from './part-reads.js';
export { REALTIME_PATH, type RealtimeControl } from './realtime.js';
export { SimService, type ProjectSnapshot, type TaskFields } from './service/service.js';
export type { ProjectChanges, ProjectInput, TokenInput } from './service/projects.js';
export type { MemberInput } from './service/roster.js';
export type { FixtureProject, FixtureTask, SimFixture } from './seed/fixture.js';
export { SEED_TIMESTAMP } from './seed/random.js';
export { Prng } from './model/prng.js';
export type { LimitSettings, TokenUsage } from './limits/limits.js';
export { DEFAULT_PAGE_SIZE } from './http/paging.js';
export { MAX_PAGE_SIZE } from '../domain/index.js';
export { hashToken, TOKEN_PREFIX } from './model/tokens.js';
