/**
 * Seeded sample data: the same seed always yields the same users, projects, members, resources,
 * tasks and dependencies. Timestamps are a fixed instant, not the clock, for the same reason.
 */
import { TaskRow, type ProjectRow } from '../model/rows.js';
import { Prng } from '../model/prng.js';
import type { Core } from '../service/core.js';
import { addDependency } from '../service/dependencies.js';
import { addProject, addUser } from '../service/projects.js';
import { createResource } from '../service/resources.js';
import { addMember } from '../service/roster.js';
import * as words from './words.js';

/** The `updatedAt` of every seeded task. */
export const SEED_TIMESTAMP = '2026-01-01T00:00:00.000Z';
const SEED_START_DATE_MS = Date.UTC(2026, 0, 5);
const DATE_SPAN_DAYS = 365;
const MAX_DURATION_DAYS = 30;
const MS_PER_DAY = 86_400_000;
const ASSIGNED_SHARE = 0.7;

/** What to generate. */
export interface RandomSeedSpec {
  seed: number;
  projects: number;
  /** Tasks per project: entry i for project i, the last entry for the rest. */
  tasks: readonly number[];
  /** The last this-many projects get a `readOnlyReason`. */
  readOnlyProjects: number;
  membersPerProject: number;
  resourcesPerProject: number;
  dependenciesPerProject: number;
}

/** Generates the seeded data; returns the seeded user's id. */
export function seedRandom(core: Core, spec: RandomSeedSpec): string {
  const prng = new Prng(spec.seed);
  const user = addUser(core, {
    name: `${prng.pick(words.FIRST_NAMES)} ${prng.pick(words.LAST_NAMES)}`,
  });
  for (let index = 0; index < spec.projects; index += 1) {
    const readOnly = index >= spec.projects - spec.readOnlyProjects;
    const project = addProject(core, {
      name: `${prng.pick(words.PROJECT_ADJECTIVES)} ${prng.pick(words.PROJECT_NOUNS)}`,
      readOnlyReason: readOnly ? 'archived' : null,
      userIds: [user.id],
    });
    for (let m = 0; m < spec.membersPerProject; m += 1) {
      const name = `${prng.pick(words.FIRST_NAMES)} ${prng.pick(words.LAST_NAMES)}`;
      addMember(core, project, { name, kind: 'person' });
    }
    for (let r = 0; r < spec.resourcesPerProject; r += 1) {
      createResource(core, project, { name: prng.pick(words.RESOURCE_NAMES) });
    }
    const count = spec.tasks[Math.min(index, spec.tasks.length - 1)] ?? 0;
    seedTasks(core, project, count, prng);
    seedDependencies(core, project, spec.dependenciesPerProject);
  }
  return user.id;
}

/**
 * Appends `count` generated tasks without announcing them (a bulk load, fast enough for a
 * million): names and dates come from small pools, so rows share their strings.
 */
export function seedTasks(core: Core, project: ProjectRow, count: number, prng: Prng): void {
  const names = words.TASK_VERBS.flatMap((verb) =>
    words.TASK_OBJECTS.map((object) => `${verb} ${object}`),
  );
  const dates = Array.from({ length: DATE_SPAN_DAYS + MAX_DURATION_DAYS + 1 }, (_, day) =>
    new Date(SEED_START_DATE_MS + day * MS_PER_DAY).toISOString().slice(0, 10),
  );
  const persons = [...project.members.values()].filter((member) => member.kind === 'person');
  const assignments = persons.map((member) => Object.freeze([member.id]));
  const unassigned = Object.freeze([] as string[]);
  for (let i = 0; i < count; i += 1) {
    const start = prng.int(DATE_SPAN_DAYS);
    const end = start + prng.int(MAX_DURATION_DAYS + 1);
    const roll = prng.next();
    const progress = roll < 0.4 ? 0 : roll < 0.75 ? 1 + prng.int(99) : 100;
    const status = progress === 0 ? 'NotStarted' : progress === 100 ? 'Done' : 'InProgress';
    const assigned = assignments.length > 0 && prng.next() < ASSIGNED_SHARE;
    const row = new TaskRow(
      core.state.newId('t'),
      project.id,
      prng.pick(names),
      dates[start] ?? '2026-01-05',
      dates[end] ?? '2026-01-05',
      status,
      progress,
      assigned ? prng.pick(assignments) : unassigned,
      SEED_TIMESTAMP,
    );
    project.tasks.append(row);
    core.state.tasks.set(row.id, row);
  }
}

/** A finish-to-start chain over the first tasks of the project. */
function seedDependencies(core: Core, project: ProjectRow, count: number): void {
  const first = project.tasks.page(0, count + 1);
  for (let i = 0; i + 1 < first.length; i += 1) {
    const predecessor = first[i];
    const successor = first[i + 1];
    if (predecessor === undefined || successor === undefined) continue;
    addDependency(core, project, {
      id: undefined,
      predecessorId: predecessor.id,
      successorId: successor.id,
      type: 'FS',
    });
  }
}
