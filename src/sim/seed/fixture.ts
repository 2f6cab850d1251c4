/**
 * A JSON fixture of the whole service: users, projects (read-only ones included) with their
 * members, tasks, resources and dependencies, and tokens. Every record is checked with the same
 * rules as the API; a bad fixture is a usage error naming the bad entry.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../../domain/index.js';
import { SimError } from '../errors.js';
import type { ProjectRow } from '../model/rows.js';
import type { Core } from '../service/core.js';
import { addDependency } from '../service/dependencies.js';
import { addProject, addUser, createToken } from '../service/projects.js';
import { createResource } from '../service/resources.js';
import { addMember } from '../service/roster.js';
import { createTask } from '../service/tasks.js';
import { parseDependency, parseNewTask, parseResource } from '../service/validate.js';

/** A fixture's task: the create-task fields plus optional `id` and `updatedAt`. */
export interface FixtureTask {
  id?: string;
  name: string;
  startDate: string;
  endDate: string;
  status: string;
  progress?: number;
  assigneeIds?: string[];
  updatedAt?: string;
}

/** A fixture's project with everything in it. */
export interface FixtureProject {
  id?: string;
  name?: string;
  active?: boolean;
  readOnlyReason?: string | null;
  /** Users who can access it (default: the first user). */
  userIds?: string[];
  members?: { id?: string; name?: string; kind?: 'person' | 'integration' }[];
  tasks?: FixtureTask[];
  resources?: { id?: string; name: string }[];
  dependencies?: { id?: string; predecessorId: string; successorId: string; type?: string }[];
}

/** The fixture file's shape. Without users, one user is made and given every project. */
export interface SimFixture {
  users?: { id?: string; name?: string }[];
  projects?: FixtureProject[];
  /** Account tokens (no `projects`) or project tokens; `userId` defaults to the first user. */
  tokens?: { value: string; userId?: string; projects?: string[]; label?: string }[];
}

/** Reads and parses a fixture file. */
export function readFixture(file: string): SimFixture {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read fixture ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
  try {
    return JSON.parse(text) as SimFixture;
  } catch {
    throw new UsageError(`fixture ${file} is not valid JSON`);
  }
}

/** Loads a fixture into an empty service; returns the first user's id and the token values. */
export function loadFixture(core: Core, fixture: SimFixture): { userId: string; tokens: string[] } {
  if (typeof fixture !== 'object' || fixture === null || Array.isArray(fixture)) {
    throw new UsageError('fixture: must be a JSON object');
  }
  const users = list(fixture.users, 'users');
  const userIds = users.map((user, i) => at(`users[${i}]`, () => addUser(core, user).id));
  if (userIds.length === 0) userIds.push(addUser(core).id);
  list(fixture.projects, 'projects').forEach((input, i) =>
    at(`projects[${i}]`, () => loadProject(core, input, `projects[${i}]`)),
  );
  const tokens = list(fixture.tokens, 'tokens').map((input, i) =>
    at(`tokens[${i}]`, () => createToken(core, input).value),
  );
  return { userId: userIds[0] as string, tokens };
}

function loadProject(core: Core, input: FixtureProject, path: string): void {
  const project = addProject(core, {
    id: input.id,
    name: input.name,
    active: input.active,
    readOnlyReason: input.readOnlyReason,
    userIds: input.userIds,
  });
  list(input.members, `${path}.members`).forEach((member, i) =>
    at(`${path}.members[${i}]`, () => addMember(core, project, member)),
  );
  list(input.resources, `${path}.resources`).forEach((resource, i) =>
    at(`${path}.resources[${i}]`, () => {
      if (resource.id !== undefined && core.state.resources.has(resource.id)) {
        throw new Error(`resource id ${resource.id} is already used`);
      }
      createResource(core, project, parseResource(resource), resource.id);
    }),
  );
  list(input.tasks, `${path}.tasks`).forEach((task, i) =>
    at(`${path}.tasks[${i}]`, () => loadTask(core, project, task)),
  );
  list(input.dependencies, `${path}.dependencies`).forEach((dependency, i) =>
    at(`${path}.dependencies[${i}]`, () =>
      addDependency(core, project, parseDependency(dependency, project, core.state)),
    ),
  );
}

function loadTask(core: Core, project: ProjectRow, input: FixtureTask): void {
  if (input.id !== undefined && (typeof input.id !== 'string' || core.state.tasks.has(input.id))) {
    throw new Error(`task id ${String(input.id)} is invalid or already used`);
  }
  const row = createTask(core, project, parseNewTask(input, project), undefined, input.id);
  if (input.updatedAt !== undefined) {
    if (typeof input.updatedAt !== 'string' || Number.isNaN(Date.parse(input.updatedAt))) {
      throw new Error('updatedAt must be an ISO timestamp');
    }
    row.updatedAt = input.updatedAt;
  }
}

function list<T>(value: T[] | undefined, path: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new UsageError(`fixture: ${path} must be an array`);
  return value;
}

function at<T>(path: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const message =
      error instanceof SimError || error instanceof Error ? error.message : String(error);
    throw new UsageError(`fixture: ${path}: ${message}`);
  }
}
