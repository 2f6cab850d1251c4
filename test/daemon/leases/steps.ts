/**
 * The random cases of the lease property: a world (3 to 6 projects, 1 to 4 daemon slots, each
 * seeing a subset, every project seen by a slot that is alive at the end) and a sequence of
 * steps. Slot and project numbers are taken modulo the world's, so that any shrunk case plays.
 */
import fc from 'fast-check';

/** What a slot's tokens see, and whether a daemon runs in it at the end. */
export interface Slot {
  visible: string[];
  survivor: boolean;
}

/** The projects and the daemon slots of a case. */
export interface World {
  projects: string[];
  slots: Slot[];
}

/** One step; a step on a slot with no daemon (or one already running, for `start`) does nothing. */
export type Step =
  | { kind: 'start' | 'heartbeat' | 'pass' | 'crash' | 'stop'; slot: number }
  /** Time passes for the crashed daemons: their leases expire, their heartbeat is old. */
  | { kind: 'expireCrashed' }
  /**
   * Time passes for everyone, in twelfths of the lease time (5 s): the database's clock runs
   * ahead of the keepers' fake one by the case's real time, far less, so no step ever ends
   * between the two views of one lease's expiry.
   */
  | { kind: 'elapse'; twelfths: number }
  | { kind: 'fence'; slot: number; project: number }
  /** A one-shot `push` claims its items' projects, then stops or is killed. */
  | { kind: 'push'; projects: number[]; killed: boolean };

/** A case: its world and its steps. */
export interface LeaseCase {
  world: World;
  steps: Step[];
}

const MAX_PROJECTS = 6;
const MAX_SLOTS = 4;
const MAX_STEPS = 30;

const slotIndex = fc.nat({ max: MAX_SLOTS - 1 });
const projectIndex = fc.nat({ max: MAX_PROJECTS - 1 });

const rawWorld = fc.record({
  count: fc.integer({ min: 3, max: MAX_PROJECTS }),
  slots: fc.array(
    fc.record({
      sees: fc.array(fc.boolean(), { minLength: MAX_PROJECTS, maxLength: MAX_PROJECTS }),
      survivor: fc.boolean(),
    }),
    { minLength: 1, maxLength: MAX_SLOTS },
  ),
});

type RawWorld = { count: number; slots: Array<{ sees: boolean[]; survivor: boolean }> };

/** Makes every project visible to a survivor (the first slot is one when none is). */
function toWorld(raw: RawWorld): World {
  const projects = Array.from({ length: raw.count }, (_, index) => `p_${index + 1}`);
  const slots = raw.slots.map((slot, index) => ({
    visible: projects.filter((_, project) => slot.sees[project]),
    survivor: slot.survivor || (index === 0 && !raw.slots.some((other) => other.survivor)),
  }));
  const survivors = slots.filter((slot) => slot.survivor);
  projects.forEach((projectId, index) => {
    if (survivors.some((slot) => slot.visible.includes(projectId))) return;
    const guardian = survivors[index % survivors.length]!;
    guardian.visible = projects.filter(
      (other) => other === projectId || guardian.visible.includes(other),
    );
  });
  return { projects, slots };
}

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('start' as const), slot: slotIndex }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), slot: slotIndex }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('pass' as const), slot: slotIndex }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('crash' as const), slot: slotIndex }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('stop' as const), slot: slotIndex }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('expireCrashed' as const) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('elapse' as const),
      // Mostly within a lease time (a lease expiring between two steps), at times a long
      // silence (three lease times make the others forget a daemon).
      twelfths: fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 12 }), weight: 3 },
        { arbitrary: fc.integer({ min: 13, max: 40 }), weight: 1 },
      ),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('fence' as const),
      slot: slotIndex,
      project: projectIndex,
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('push' as const),
      projects: fc.uniqueArray(projectIndex, { maxLength: MAX_PROJECTS }),
      killed: fc.boolean(),
    }),
    weight: 1,
  },
);

/** The cases the property plays. */
export const leaseCase: fc.Arbitrary<LeaseCase> = fc.record({
  world: rawWorld.map(toWorld),
  steps: fc.array(step, { maxLength: MAX_STEPS, size: 'max' }),
});
