/**
 * The model of operations of the convergence property: what one case is made of, as plain data
 * that fast-check generates, shrinks and prints. Every target is a pick (a small number taken
 * modulo what exists when the step runs), so a shrunk sequence stays runnable whatever was
 * removed before it. To add an operation: add a variant here and its arbitrary below, then its
 * executor in `service-changes.ts` (a change on the service) or `driver.ts` (anything else).
 */
import fc from 'fast-check';

/** How a change is announced: an event with its record, an event without it, or no event. */
export type Announce = 'data' | 'bare' | 'silent';

/** A change made on the service side, as its own application (or another client) would. */
export type ServiceChange =
  | { kind: 'createTask'; project: number; assignees: number[] }
  | { kind: 'updateTask'; project: number; task: number; field: TaskField; value: number }
  | { kind: 'deleteTask'; project: number; task: number }
  | { kind: 'setAssignees'; project: number; task: number; members: number[] }
  | { kind: 'reorder'; project: number; shift: number }
  | { kind: 'addDependency'; project: number; from: number; to: number }
  | { kind: 'removeDependency'; project: number; dependency: number }
  | { kind: 'setDependencies'; project: number; pairs: [number, number][] }
  | { kind: 'createResource'; project: number }
  | { kind: 'updateResource'; project: number; resource: number }
  | { kind: 'deleteResource'; project: number; resource: number }
  | { kind: 'addMember'; project: number; integration: boolean }
  | { kind: 'removeMember'; project: number; member: number }
  | { kind: 'renameProject'; project: number };

/** The task field an update changes. */
export type TaskField = 'name' | 'progress' | 'status' | 'dates';

/** A local edit queued in the outbox (by SQL, as a user's script would). */
export type OutboxIntent =
  | { op: 'task.create'; project: number }
  | { op: 'resource.create'; project: number }
  | { op: 'task.update'; project: number; value: number };

/** A malformed realtime message about a real task: the service did not change. */
export type EventFlaw = 'idMismatch' | 'nanProgress' | 'numericName';

/** One step of a case. */
export type Step =
  | { kind: 'change'; change: ServiceChange; announce: Announce }
  /** The change happens when a client next reads page 1 of the project's tasks (mid-pass). */
  | { kind: 'duringNextPass'; change: ServiceChange; announce: Announce }
  | { kind: 'outbox'; item: OutboxIntent }
  | { kind: 'fault'; fault: FaultChoice; on: 'read' | 'write' | 'any'; count: number }
  | { kind: 'realtimeDrop'; refusals: number }
  | { kind: 'restart' }
  | { kind: 'kill' }
  | { kind: 'badEvent'; flaw: EventFlaw; project: number; task: number }
  | {
      kind: 'hintFlood';
      messages: number;
      spacingMs: number;
      namesProject: boolean;
      project: number;
    }
  /** Lets the daemon run: real I/O settles, then the clock moves `ms` from wake-up to wake-up. */
  | { kind: 'pause'; ms: number }
  /**
   * Another connection holds the lock the daemon's writes need while `during` happens, then a
   * while longer (real time: long enough for the store to give up on its units, or not), then
   * lets go (`outage.ts` says what each engine does).
   */
  | { kind: 'heldLock'; long: boolean; during: Step[] }
  /** The database stops answering the daemon while `during` happens, then answers again. */
  | { kind: 'stalledDatabase'; long: boolean; during: Step[] };

/** The steps that take the daemon's database away for a while. */
export type OutageStep = Extract<Step, { kind: 'heldLock' | 'stalledDatabase' }>;

/** An injected HTTP failure of the simulator (`src/sim/faults.ts`). */
export type FaultChoice = 'http500' | 'http503' | 'drop' | 'commitThenDrop';

/** One case: the service's starting size, what happens before the daemon starts, and the steps. */
export interface ConvergenceCase {
  /** Tasks of each project at the start (one entry per project). */
  tasks: number[];
  /** Run before the first start: changes armed for its first pass, queued items, faults. */
  beforeStart: Step[];
  /** Let the first start-up finish before the steps (else the steps race it). */
  settleAfterStart: boolean;
  steps: Step[];
}

/** Bounds of a case (the issue: a few projects of tens of tasks, up to ~15 steps). */
export const MAX_PROJECTS = 3;
export const MAX_TASKS_PER_PROJECT = 25;
export const MAX_STEPS = 15;
export const MAX_STEPS_BEFORE_START = 3;
/** Steps during one outage (each outage costs real time: see `outage.ts`). */
export const MAX_STEPS_DURING_OUTAGE = 4;

const pick = fc.nat({ max: 63 });
const announce: fc.Arbitrary<Announce> = fc.constantFrom('data', 'bare', 'silent');

/** A change of one task's field. */
const updateTask: fc.Arbitrary<ServiceChange> = fc.record({
  kind: fc.constant('updateTask'),
  project: pick,
  task: pick,
  field: fc.constantFrom<TaskField>('name', 'progress', 'status', 'dates'),
  value: fc.nat({ max: 100 }),
});

/** Every kind of service-side change, with its targets as picks. */
export const serviceChange: fc.Arbitrary<ServiceChange> = fc.oneof(
  fc.record({ kind: fc.constant('createTask'), project: pick, assignees: picks(2) }),
  { weight: 3, arbitrary: updateTask },
  fc.record({ kind: fc.constant('deleteTask'), project: pick, task: pick }),
  fc.record({ kind: fc.constant('setAssignees'), project: pick, task: pick, members: picks(3) }),
  fc.record({ kind: fc.constant('reorder'), project: pick, shift: fc.integer({ min: 1, max: 9 }) }),
  fc.record({ kind: fc.constant('addDependency'), project: pick, from: pick, to: pick }),
  fc.record({ kind: fc.constant('removeDependency'), project: pick, dependency: pick }),
  fc.record({
    kind: fc.constant('setDependencies'),
    project: pick,
    pairs: fc.array(fc.tuple(pick, pick), { maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('createResource'), project: pick }),
  fc.record({ kind: fc.constant('updateResource'), project: pick, resource: pick }),
  fc.record({ kind: fc.constant('deleteResource'), project: pick, resource: pick }),
  fc.record({ kind: fc.constant('addMember'), project: pick, integration: fc.boolean() }),
  fc.record({ kind: fc.constant('removeMember'), project: pick, member: pick }),
  fc.record({ kind: fc.constant('renameProject'), project: pick }),
);

const outboxIntent: fc.Arbitrary<OutboxIntent> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('task.create'), project: pick }) },
  fc.record({ op: fc.constant('resource.create'), project: pick }),
  fc.record({ op: fc.constant('task.update'), project: pick, value: fc.nat({ max: 100 }) }),
);

const fault = fc.record({
  kind: fc.constant('fault'),
  fault: fc.constantFrom<FaultChoice>('http500', 'http503', 'drop', 'commitThenDrop'),
  on: fc.constantFrom<'read' | 'write' | 'any'>('read', 'write', 'any'),
  count: fc.integer({ min: 1, max: 3 }),
});

const pause = fc.record({
  kind: fc.constant('pause'),
  ms: fc.constantFrom(0, 0, 200, 1_500, 5_000, 30_000),
});

const hintFlood = fc.record({
  kind: fc.constant('hintFlood'),
  messages: fc.integer({ min: 3, max: 20 }),
  spacingMs: fc.constantFrom(100, 1_500, 3_000),
  namesProject: fc.boolean(),
  project: pick,
});

const badEvent = fc.record({
  kind: fc.constant('badEvent'),
  flaw: fc.constantFrom<EventFlaw>('idMismatch', 'nanProgress', 'numericName'),
  project: pick,
  task: pick,
});

/** Changes whose own events carry no record: announcing them "with data" still needs a read. */
const BARE_BY_NATURE = new Set<ServiceChange['kind']>([
  'removeDependency',
  'setDependencies',
  'deleteResource',
  'removeMember',
]);
const selfAnnouncedChange = serviceChange.filter((change) => !BARE_BY_NATURE.has(change.kind));

/**
 * A held lock or a stalled database, with steps during it: the service changing (announced as
 * `announce` allows), items queued, faults, bad events, pauses and, when `dropped`, realtime
 * drops (no restart or kill: those are steps of their own, between outages).
 */
function outage(
  changes: fc.Arbitrary<ServiceChange>,
  announcing: fc.Arbitrary<Announce>,
  dropped: boolean,
): fc.Arbitrary<OutageStep> {
  const change = { change: changes, announce: announcing };
  const during: fc.Arbitrary<Step[]> = fc.array(
    fc.oneof<(fc.Arbitrary<Step> | fc.WeightedArbitrary<Step>)[]>(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('change'), ...change }) },
      fc.record({ kind: fc.constant('duringNextPass'), ...change }),
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('outbox'), item: outboxIntent }) },
      fault,
      badEvent,
      ...(dropped
        ? [fc.record({ kind: fc.constant('realtimeDrop'), refusals: fc.nat({ max: 2 }) })]
        : []),
      { weight: 2, arbitrary: pause },
    ),
    { maxLength: MAX_STEPS_DURING_OUTAGE },
  );
  return fc.record({
    kind: fc.constantFrom('heldLock' as const, 'stalledDatabase' as const),
    long: fc.boolean(),
    during,
  });
}

/** Any step after the first start. */
const anyStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('change'), change: serviceChange, announce }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('duringNextPass'), change: serviceChange, announce }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('outbox'), item: outboxIntent }) },
  { weight: 2, arbitrary: fault },
  fc.record({ kind: fc.constant('realtimeDrop'), refusals: fc.nat({ max: 2 }) }),
  fc.record({ kind: fc.constant('restart') }),
  fc.record({ kind: fc.constant('kill') }),
  badEvent,
  hintFlood,
  { weight: 5, arbitrary: pause },
  { weight: 2, arbitrary: outage(serviceChange, announce, true) },
);

/**
 * A step that leaves the daemon no excuse for a reconcile: changes announced with their
 * records, no drop, no restart, no kill (faults, bad events and floods are no changes).
 */
const announcedStep: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('change'),
      change: selfAnnouncedChange,
      announce: fc.constant('data'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('duringNextPass'),
      change: selfAnnouncedChange,
      announce: fc.constant('data'),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('outbox'), item: outboxIntent }) },
  { weight: 2, arbitrary: fault },
  { weight: 2, arbitrary: badEvent },
  { weight: 5, arbitrary: pause },
  { weight: 2, arbitrary: outage(selfAnnouncedChange, fc.constant<Announce>('data'), false) },
);

/** What may run before the daemon's first start (no daemon to drop, restart or kill yet). */
function beforeStartStep(announced: boolean): fc.Arbitrary<Step> {
  return fc.oneof(
    fc.record({
      kind: fc.constant('duringNextPass'),
      change: announced ? selfAnnouncedChange : serviceChange,
      announce: announced ? fc.constant<Announce>('data') : announce,
    }),
    fc.record({ kind: fc.constant('outbox'), item: outboxIntent }),
    fault,
  );
}

const projectSizes = fc.array(fc.integer({ min: 1, max: MAX_TASKS_PER_PROJECT }), {
  minLength: 1,
  maxLength: MAX_PROJECTS,
});

function caseOf(steps: fc.Arbitrary<Step>, announced: boolean): fc.Arbitrary<ConvergenceCase> {
  return fc.record({
    tasks: projectSizes,
    beforeStart: fc.array(beforeStartStep(announced), { maxLength: MAX_STEPS_BEFORE_START }),
    settleAfterStart: fc.boolean(),
    steps: fc.array(steps, { maxLength: MAX_STEPS }),
  });
}

/**
 * A whole case: half of them of any steps (a reconcile is then usually allowed), half with
 * every change announced with its record and no connection dropped (no reconcile allowed).
 */
export const convergenceCase: fc.Arbitrary<ConvergenceCase> = fc.oneof(
  caseOf(anyStep, false),
  caseOf(announcedStep, true),
);

/**
 * Issue 34: a case of changes announced while the daemon's database is away (a lock held within
 * or past the store's patience, a stalled database), every change announced to the connected
 * daemon with its record or without it, never silently, and no connection dropped: the daemon
 * heard of every change, so no reconcile is allowed. Outages end at random points among changes
 * and pauses.
 */
export const lockedCase: fc.Arbitrary<ConvergenceCase> = lockedCaseOf(
  // Mostly task updates, as in the operator's trial: a lone one announced bare is one fetch.
  fc.oneof({ weight: 3, arbitrary: updateTask }, { weight: 2, arbitrary: serviceChange }),
);

function lockedCaseOf(changes: fc.Arbitrary<ServiceChange>): fc.Arbitrary<ConvergenceCase> {
  const change = fc.record({
    kind: fc.constant('change'),
    change: changes,
    // Bare more often: each is a fetch whose write the store may refuse.
    announce: fc.constantFrom<Announce>('bare', 'bare', 'data'),
  });
  // Pauses of the coalescing window or more, so that fetches happen while the lock is held.
  const windowPause = fc.record({
    kind: fc.constant('pause'),
    ms: fc.constantFrom(0, 1_500, 1_500, 5_000),
  });
  const during = fc.array(fc.oneof(change, windowPause), { maxLength: MAX_STEPS_DURING_OUTAGE });
  const away: fc.Arbitrary<OutageStep> = fc.record({
    kind: fc.constantFrom('heldLock' as const, 'stalledDatabase' as const),
    // Past the store's patience more often than not.
    long: fc.constantFrom(true, true, false),
    during,
  });
  return fc.record({
    tasks: projectSizes,
    beforeStart: fc.constant([]),
    settleAfterStart: fc.constant(true),
    steps: fc.array(fc.oneof({ weight: 3, arbitrary: away }, change, pause), {
      minLength: 1,
      maxLength: 5,
    }),
  });
}

/** A case of hint floods among announced changes and pauses: what a flood costs, alone. */
export const floodCase: fc.Arbitrary<ConvergenceCase> = fc.record({
  tasks: projectSizes,
  beforeStart: fc.constant([]),
  settleAfterStart: fc.constant(true),
  steps: fc.array(
    fc.oneof(
      hintFlood,
      fc.record({
        kind: fc.constant('change'),
        change: serviceChange,
        announce: fc.constant('data'),
      }),
      pause,
    ),
    { minLength: 1, maxLength: 4 },
  ),
});

function picks(maxLength: number): fc.Arbitrary<number[]> {
  return fc.array(pick, { maxLength });
}
