/**
 * The records as the simulator stores them, and their public JSON shapes (contract section 4).
 * Stored rows carry internal links (the owning project, the token behind an integration member)
 * that never leave the simulator.
 */
import type { Dependency, Member, Project, Resource, Task } from '../../domain/index.js';
import type { TaskList } from './task-list.js';

/** A user of the service: the person account tokens act as. */
export interface UserRow {
  id: string;
  name: string;
}

/** A task as stored: the public fields plus the project it belongs to. */
export class TaskRow {
  constructor(
    readonly id: string,
    readonly projectId: string,
    public name: string,
    public startDate: string,
    public endDate: string,
    public status: string,
    public progress: number,
    /** Never mutated in place: replaced on every change, so seeded rows may share arrays. */
    public assigneeIds: readonly string[],
    public updatedAt: string,
  ) {}
}

/** A member row; `tokenHash` links an integration identity to its token. */
export interface MemberRow {
  id: string;
  name: string;
  kind: 'person' | 'integration';
  tokenHash?: string;
}

/** A resource of a project. */
export interface ResourceRow {
  id: string;
  projectId: string;
  name: string;
}

/** A dependency between two tasks of one project. */
export interface DependencyRow {
  id: string;
  projectId: string;
  predecessorId: string;
  successorId: string;
  type: string;
}

/** A project with everything it holds. Maps keep insertion order, which is the listing order. */
export interface ProjectRow {
  id: string;
  name: string;
  active: boolean;
  readOnlyReason: string | null;
  /** Users who can access the project (what account tokens see). */
  userIds: Set<string>;
  tasks: TaskList;
  members: Map<string, MemberRow>;
  /** Token hash to the id of that token's integration member on this project. */
  integrationMembers: Map<string, string>;
  resources: Map<string, ResourceRow>;
  dependencies: Map<string, DependencyRow>;
}

/** The public JSON of a task. */
export function taskJson(row: TaskRow): Task {
  return {
    id: row.id,
    name: row.name,
    startDate: row.startDate,
    endDate: row.endDate,
    status: row.status,
    progress: row.progress,
    assigneeIds: [...row.assigneeIds],
    updatedAt: row.updatedAt,
  };
}

/** The public JSON of a project. */
export function projectJson(row: ProjectRow): Project {
  return { id: row.id, name: row.name, active: row.active, readOnlyReason: row.readOnlyReason };
}

/** The public JSON of a member. */
export function memberJson(row: MemberRow): Member {
  return { id: row.id, name: row.name, kind: row.kind };
}

/** The public JSON of a resource. */
export function resourceJson(row: ResourceRow): Resource {
  return { id: row.id, name: row.name };
}

/** The public JSON of a dependency. */
export function dependencyJson(row: DependencyRow): Dependency {
  return {
    id: row.id,
    predecessorId: row.predecessorId,
    successorId: row.successorId,
    type: row.type,
  };
}
