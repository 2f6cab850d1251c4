import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTES, UsageError } from '../../src/domain/index.js';
import { parseRouteOverrides, resolveRoutes } from '../../src/remote/index.js';

describe('route overrides', () => {
  it('lays each override over its default, keeping the default method', () => {
    const table = resolveRoutes({
      getTask: { path: '/items/{taskId}' },
      reorderTasks: { method: 'put' },
    });
    expect(table.getTask).toEqual({ method: 'GET', path: '/items/{taskId}' });
    expect(table.reorderTasks).toEqual({ method: 'PUT', path: DEFAULT_ROUTES.reorderTasks.path });
    expect(table.listProjects).toEqual(DEFAULT_ROUTES.listProjects);
  });

  it('names an unknown route, a bad method, a bad path and a parameter the call lacks', () => {
    expect(() => parseRouteOverrides({ listTask: {} })).toThrow(/routes\.listTask is not a route/);
    expect(() => parseRouteOverrides({ getTask: { method: 'FETCH' } })).toThrow(
      'routes.getTask.method "FETCH" is not an HTTP method',
    );
    expect(() => parseRouteOverrides({ getTask: { path: 'tasks/{taskId}' } })).toThrow(
      /must be a path starting with \//,
    );
    expect(() =>
      parseRouteOverrides({ getTask: { path: '/projects/{projectId}/tasks/{taskId}' } }),
    ).toThrow('uses {projectId}; it may use only {taskId}');
    expect(() => parseRouteOverrides([])).toThrow(UsageError);
  });
});
