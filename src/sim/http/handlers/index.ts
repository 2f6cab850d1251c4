/** The handler of every operation except health (which the pipeline answers itself). */
import type { RouteName } from '../../../domain/index.js';
import type { Handler } from '../context.js';
import * as collections from './collections.js';
import { getProject, listProjects } from './projects.js';
import * as tasks from './tasks.js';

/** Operation name to handler. */
export const HANDLERS: Record<Exclude<RouteName, 'health'>, Handler> = {
  listProjects,
  getProject,
  listTasks: tasks.listTasks,
  createTask: tasks.createTaskHandler,
  getTask: tasks.getTask,
  updateTask: tasks.updateTaskHandler,
  deleteTask: tasks.deleteTaskHandler,
  reorderTasks: tasks.reorderTasksHandler,
  setAssignees: tasks.setAssignees,
  listDependencies: collections.listDependencies,
  setDependencies: collections.setDependenciesHandler,
  addDependency: collections.addDependencyHandler,
  removeDependency: collections.removeDependencyHandler,
  listResources: collections.listResources,
  createResource: collections.createResourceHandler,
  updateResource: collections.updateResourceHandler,
  deleteResource: collections.deleteResourceHandler,
  listMembers: collections.listMembers,
};
