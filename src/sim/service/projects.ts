/** Users, projects and tokens: the parts of the service only scripts (and seeding) change. */
import { projectJson, type ProjectRow, type UserRow } from '../model/rows.js';
import { SimState } from '../model/state.js';
import { generateToken, type TokenRecord } from '../model/tokens.js';
import { emit, projectById, type Core } from './core.js';

/** What a script gives to add a project. */
export interface ProjectInput {
  id?: string;
  name?: string;
  active?: boolean;
  readOnlyReason?: string | null;
  /** Users who can access it (default: the first user). */
  userIds?: string[];
}

/** What a script may change on a project. */
export interface ProjectChanges {
  name?: string;
  active?: boolean;
  readOnlyReason?: string | null;
}

/** What a script gives to issue a token. */
export interface TokenInput {
  /** Grant these projects: a project token. Absent: an account token. */
  projects?: string[];
  /** The issuing user (default: the first user). */
  userId?: string;
  /** Shown in the name of the token's integration identities. */
  label?: string;
  /** The token value (default: a random `glt_` value). */
  value?: string;
}

/** Adds a user. */
export function addUser(core: Core, input: { id?: string; name?: string } = {}): UserRow {
  const id = input.id ?? core.state.newId('u');
  if (core.state.users.has(id)) throw new Error(`user ${id} already exists`);
  const user = { id, name: input.name ?? `User ${id}` };
  core.state.users.set(id, user);
  return user;
}

function firstUserId(core: Core): string {
  const first = core.state.users.keys().next();
  if (first.done) throw new Error('the simulator has no user');
  return first.value;
}

/** Adds a project, announced as `project.updated`. */
export function addProject(core: Core, input: ProjectInput = {}): ProjectRow {
  const id = input.id ?? core.state.newId('p');
  if (core.state.projects.has(id)) throw new Error(`project ${id} already exists`);
  const project = SimState.emptyProject(id, input.name ?? `Project ${id}`);
  project.active = input.active ?? true;
  project.readOnlyReason = input.readOnlyReason ?? null;
  for (const userId of input.userIds ?? [firstUserId(core)]) {
    if (!core.state.users.has(userId)) throw new Error(`user ${userId} does not exist`);
    project.userIds.add(userId);
  }
  core.state.projects.set(id, project);
  emit(core, 'project.updated', id, id, projectJson(project));
  return project;
}

/** Changes a project's name, active flag or read-only reason. */
export function updateProject(core: Core, projectId: string, changes: ProjectChanges): ProjectRow {
  const project = projectById(core, projectId);
  if (changes.name !== undefined) project.name = changes.name;
  if (changes.active !== undefined) project.active = changes.active;
  if (changes.readOnlyReason !== undefined) project.readOnlyReason = changes.readOnlyReason;
  emit(core, 'project.updated', project.id, project.id, projectJson(project));
  return project;
}

/** Deletes a project and everything in it; announced (first) as `project.updated` without data. */
export function removeProject(core: Core, projectId: string): void {
  const project = projectById(core, projectId);
  emit(core, 'project.updated', projectId, projectId);
  for (const task of project.tasks.all()) core.state.tasks.delete(task.id);
  for (const id of project.resources.keys()) core.state.resources.delete(id);
  for (const id of project.dependencies.keys()) core.state.dependencies.delete(id);
  core.state.projects.delete(projectId);
}

/** Issues a token and returns its value (the only time the value exists in the simulator). */
export function createToken(
  core: Core,
  input: TokenInput = {},
): { value: string; record: TokenRecord } {
  const userId = input.userId ?? firstUserId(core);
  if (!core.state.users.has(userId)) throw new Error(`user ${userId} does not exist`);
  for (const projectId of input.projects ?? []) projectById(core, projectId);
  const value = input.value ?? generateToken();
  const record = core.state.tokens.register(value, {
    userId,
    scope: input.projects === undefined ? 'account' : 'project',
    projects: new Set(input.projects ?? []),
    label: input.label ?? `API token ${core.state.tokens.size + 1}`,
  });
  return { value, record };
}
