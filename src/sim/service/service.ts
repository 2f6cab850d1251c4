/**
 * The scripted face of the service, for tests and the demo: read the state, and write to it as
 * the service's own application would. Every write is checked with the API's rules and broadcast
 * on the realtime channel like an API write. Scripted writes are not refused on read-only
 * projects (the application may still change them) and never count against any limit.
 */
import type { Dependency, Member, Project, Resource, Task } from '../../domain/index.js';
import { notFound } from '../errors.js';
import { Prng } from '../model/prng.js';
import {
  dependencyJson,
  memberJson,
  projectJson,
  resourceJson,
  taskJson,
  type ProjectRow,
} from '../model/rows.js';
import { hashToken } from '../model/tokens.js';
import { seedTasks } from '../seed/random.js';
import { projectById, taskById, timestamp, type Core } from './core.js';
import * as dependencies from './dependencies.js';
import * as projects from './projects.js';
import * as resources from './resources.js';
import * as roster from './roster.js';
import * as tasks from './tasks.js';
import * as validate from './validate.js';

/** Task fields a script may give; missing ones of a new task get defaults. */
export interface TaskFields {
  name: string;
  startDate: string;
  endDate: string;
  status: string;
  progress: number;
  assigneeIds: string[];
}

/** Everything of one project, as the API would list it. */
export interface ProjectSnapshot {
  project: Project;
  tasks: Task[];
  members: Member[];
  resources: Resource[];
  dependencies: Dependency[];
}

/** The scripted API of the simulated service. */
export class SimService {
  private readonly prng: Prng;

  constructor(
    private readonly core: Core,
    private readonly onRevoke: (tokenHash: string) => void,
    seed: number,
  ) {
    this.prng = new Prng(seed ^ 0x5eed);
  }

  /** Every project (whoever can see it), in listing order. */
  listProjects(): Project[] {
    return [...this.core.state.projects.values()].map(projectJson);
  }

  /** One project, or undefined. */
  getProject(projectId: string): Project | undefined {
    const project = this.core.state.projects.get(projectId);
    return project && projectJson(project);
  }

  /** Every task of a project in listing order (O(project)). */
  listTasks(projectId: string): Task[] {
    return projectById(this.core, projectId).tasks.all().map(taskJson);
  }

  /** How many tasks a project has. */
  taskCount(projectId: string): number {
    return projectById(this.core, projectId).tasks.size;
  }

  /** One task, or undefined. */
  getTask(taskId: string): Task | undefined {
    const task = this.core.state.tasks.get(taskId);
    return task && taskJson(task);
  }

  /** A project's roster. */
  listMembers(projectId: string): Member[] {
    return [...projectById(this.core, projectId).members.values()].map(memberJson);
  }

  /** A project's resources. */
  listResources(projectId: string): Resource[] {
    return [...projectById(this.core, projectId).resources.values()].map(resourceJson);
  }

  /** A project's dependencies. */
  listDependencies(projectId: string): Dependency[] {
    return [...projectById(this.core, projectId).dependencies.values()].map(dependencyJson);
  }

  /** Everything of one project, to compare a mirror against. */
  snapshot(projectId: string): ProjectSnapshot {
    const project = this.getProject(projectId);
    if (project === undefined) throw notFound(`project ${projectId} does not exist`);
    return {
      project,
      tasks: this.listTasks(projectId),
      members: this.listMembers(projectId),
      resources: this.listResources(projectId),
      dependencies: this.listDependencies(projectId),
    };
  }

  /** The member id of a token's integration identity on a project, if it was created. */
  integrationMemberId(token: string, projectId: string): string | undefined {
    return projectById(this.core, projectId).integrationMembers.get(hashToken(token));
  }

  /** Rows the project's task list has touched so far (pages, deletes, reorders, snapshots). */
  rowsVisited(projectId: string): number {
    return projectById(this.core, projectId).tasks.rowsVisited;
  }

  /** Adds a user; returns its id. */
  addUser(input: { id?: string; name?: string } = {}): string {
    return projects.addUser(this.core, input).id;
  }

  /** Adds a project (accessible to the first user unless `userIds` says otherwise). */
  addProject(input: projects.ProjectInput = {}): Project {
    return projectJson(projects.addProject(this.core, input));
  }

  /** Changes a project's name, active flag or read-only reason. */
  updateProject(projectId: string, changes: projects.ProjectChanges): Project {
    return projectJson(projects.updateProject(this.core, projectId, changes));
  }

  /** Makes a project read-only with `reason`, or writable again with null. */
  setReadOnly(projectId: string, reason: string | null): Project {
    return this.updateProject(projectId, { readOnlyReason: reason });
  }

  /** Deletes a project with everything in it. */
  removeProject(projectId: string): void {
    projects.removeProject(this.core, projectId);
  }

  /** Creates a task at the end of the order; defaults: a name, today's dates, `NotStarted`. */
  createTask(projectId: string, input: Partial<TaskFields> = {}): Task {
    const project = projectById(this.core, projectId);
    const today = timestamp(this.core).slice(0, 10);
    const fields = {
      name: 'Scripted task',
      startDate: today,
      endDate: today,
      status: 'NotStarted',
      ...input,
    };
    return taskJson(tasks.createTask(this.core, project, validate.parseNewTask(fields, project)));
  }

  /** Updates a task, with the same derivation rules as the API. */
  updateTask(taskId: string, changes: Partial<TaskFields>): Task {
    const task = taskById(this.core, taskId);
    const project = projectById(this.core, task.projectId);
    return taskJson(tasks.updateTask(this.core, task, validate.parseTaskChanges(changes, project)));
  }

  /** Deletes a task (and the dependencies naming it). */
  deleteTask(taskId: string): void {
    const task = taskById(this.core, taskId);
    tasks.deleteTask(this.core, projectById(this.core, task.projectId), task);
  }

  /** Reorders tasks: the listed ones take the positions they occupy, in the listed order. */
  reorderTasks(projectId: string, taskIds: string[]): void {
    const project = projectById(this.core, projectId);
    tasks.reorderTasks(
      this.core,
      project,
      validate.parseReorder({ taskIds }, project, this.core.state),
    );
  }

  /** Replaces a task's assignees. */
  setAssignees(taskId: string, assigneeIds: string[]): Task {
    return this.updateTask(taskId, { assigneeIds });
  }

  /** Appends `count` generated tasks silently (no events): bulk data for tests and benchmarks. */
  seedTasks(projectId: string, count: number): void {
    seedTasks(this.core, projectById(this.core, projectId), count, this.prng);
  }

  /** Adds a member (a person unless `kind` says otherwise). */
  addMember(projectId: string, input: roster.MemberInput = {}): Member {
    return memberJson(roster.addMember(this.core, projectById(this.core, projectId), input));
  }

  /** Removes a member and unassigns it everywhere in the project. */
  removeMember(projectId: string, memberId: string): void {
    roster.removeMember(this.core, projectById(this.core, projectId), memberId);
  }

  /** Creates a resource. */
  createResource(projectId: string, input: { name: string }): Resource {
    const project = projectById(this.core, projectId);
    return resourceJson(
      resources.createResource(this.core, project, validate.parseResource(input)),
    );
  }

  /** Renames a resource. */
  updateResource(resourceId: string, input: { name: string }): Resource {
    const row = this.core.state.resources.get(resourceId);
    if (row === undefined) throw notFound(`resource ${resourceId} does not exist`);
    return resourceJson(resources.updateResource(this.core, row, validate.parseResource(input)));
  }

  /** Deletes a resource. */
  deleteResource(resourceId: string): void {
    const row = this.core.state.resources.get(resourceId);
    if (row === undefined) throw notFound(`resource ${resourceId} does not exist`);
    resources.deleteResource(this.core, projectById(this.core, row.projectId), row);
  }

  /** Adds a dependency between two tasks of the project (type defaults to `FS`). */
  addDependency(
    projectId: string,
    input: { predecessorId: string; successorId: string; type?: string },
  ): Dependency {
    const project = projectById(this.core, projectId);
    const checked = validate.parseDependency(input, project, this.core.state);
    return dependencyJson(dependencies.addDependency(this.core, project, checked));
  }

  /** Removes a dependency. */
  removeDependency(dependencyId: string): void {
    const row = this.core.state.dependencies.get(dependencyId);
    if (row === undefined) throw notFound(`dependency ${dependencyId} does not exist`);
    dependencies.removeDependency(this.core, projectById(this.core, row.projectId), row);
  }

  /** Replaces a project's dependencies. */
  setDependencies(
    projectId: string,
    items: { id?: string; predecessorId: string; successorId: string; type?: string }[],
  ): Dependency[] {
    const project: ProjectRow = projectById(this.core, projectId);
    const checked = validate.parseDependencyList(items, project, this.core.state);
    return dependencies.setDependencies(this.core, project, checked).map(dependencyJson);
  }

  /** Issues a token: a project token when `projects` is given, else an account token. */
  createToken(input: projects.TokenInput = {}): string {
    return projects.createToken(this.core, input).value;
  }

  /** Revokes a token: later requests answer 401 and its realtime connections close. */
  revokeToken(token: string): void {
    const record = this.core.state.tokens.revoke(token);
    if (record !== undefined) this.onRevoke(record.hash);
  }
}
