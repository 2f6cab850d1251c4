/**
 * The service's operations and their default paths (spec section 4.1 and contract section 4).
 * Paths are relative to the base URL, which already ends in `/v1`; `{name}` marks a parameter.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One operation of the service. */
export interface Route {
  method: HttpMethod;
  path: string;
}

/** Every operation the service offers, by a stable name used in config files and metrics. */
export const DEFAULT_ROUTES = {
  health: { method: 'GET', path: '/health' },
  listProjects: { method: 'GET', path: '/projects' },
  getProject: { method: 'GET', path: '/projects/{projectId}' },
  listTasks: { method: 'GET', path: '/projects/{projectId}/tasks' },
  createTask: { method: 'POST', path: '/projects/{projectId}/tasks' },
  getTask: { method: 'GET', path: '/tasks/{taskId}' },
  updateTask: { method: 'PATCH', path: '/tasks/{taskId}' },
  deleteTask: { method: 'DELETE', path: '/tasks/{taskId}' },
  reorderTasks: { method: 'POST', path: '/projects/{projectId}/tasks/reorder' },
  setAssignees: { method: 'PUT', path: '/tasks/{taskId}/assignees' },
  listDependencies: { method: 'GET', path: '/projects/{projectId}/dependencies' },
  setDependencies: { method: 'PUT', path: '/projects/{projectId}/dependencies' },
  addDependency: { method: 'POST', path: '/projects/{projectId}/dependencies' },
  removeDependency: { method: 'DELETE', path: '/dependencies/{dependencyId}' },
  listResources: { method: 'GET', path: '/projects/{projectId}/resources' },
  createResource: { method: 'POST', path: '/projects/{projectId}/resources' },
  updateResource: { method: 'PATCH', path: '/resources/{resourceId}' },
  deleteResource: { method: 'DELETE', path: '/resources/{resourceId}' },
  listMembers: { method: 'GET', path: '/projects/{projectId}/members' },
} as const satisfies Record<string, Route>;

export type RouteName = keyof typeof DEFAULT_ROUTES;

/** A full route table; a config file may override any entry. */
export type RouteTable = Record<RouteName, Route>;

/** Fills a route's `{name}` parameters, URL-encoding each value. */
export function expandPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing route parameter ${name} in ${path}`);
    return encodeURIComponent(value);
  });
}
