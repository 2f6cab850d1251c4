/** The whole in-memory state of the simulated service, with the indexes every lookup needs. */
import { IdAllocator } from './ids.js';
import type { DependencyRow, ProjectRow, ResourceRow, TaskRow, UserRow } from './rows.js';
import { TaskList } from './task-list.js';
import { TokenRegistry, type TokenRecord } from './tokens.js';

/** Users, projects and the global indexes of tasks, resources and dependencies by id. */
export class SimState {
  readonly users = new Map<string, UserRow>();
  /** Projects in listing order. */
  readonly projects = new Map<string, ProjectRow>();
  readonly tasks = new Map<string, TaskRow>();
  readonly resources = new Map<string, ResourceRow>();
  readonly dependencies = new Map<string, DependencyRow>();
  /** Every member id ever used on any roster (members are keyed per project; ids stay unique). */
  readonly memberIds = new Set<string>();
  readonly tokens = new TokenRegistry();
  readonly ids = new IdAllocator();

  /** A fresh id with `prefix`, unused by any record of that kind. */
  newId(prefix: 'u' | 'p' | 't' | 'm' | 'r' | 'd'): string {
    return this.ids.next(prefix, (id) => this.idTaken(prefix, id));
  }

  private idTaken(prefix: string, id: string): boolean {
    switch (prefix) {
      case 'u':
        return this.users.has(id);
      case 'p':
        return this.projects.has(id);
      case 't':
        return this.tasks.has(id);
      case 'r':
        return this.resources.has(id);
      case 'd':
        return this.dependencies.has(id);
      default:
        return this.memberIds.has(id);
    }
  }

  /** Creates an empty project row (not yet added). */
  static emptyProject(id: string, name: string): ProjectRow {
    return {
      id,
      name,
      active: true,
      readOnlyReason: null,
      userIds: new Set(),
      tasks: new TaskList(),
      members: new Map(),
      integrationMembers: new Map(),
      resources: new Map(),
      dependencies: new Map(),
    };
  }

  /** True when `token` may see `project`: granted to a project token, or its user's project. */
  canSee(token: TokenRecord, project: ProjectRow): boolean {
    if (token.scope === 'project') return token.projects.has(project.id);
    return project.userIds.has(token.userId);
  }

  /** The projects `token` sees, in listing order. */
  visibleProjects(token: TokenRecord): ProjectRow[] {
    return [...this.projects.values()].filter((project) => this.canSee(token, project));
  }
}
