/**
 * Who may touch what. A project that does not exist is 404; one the token cannot see is 403
 * `forbidden` (for project tokens: not granted; for account tokens: not the user's). Records
 * reached by their own id (tasks, resources, dependencies) follow their project's rule.
 */
import { forbidden, notFound, projectReadOnly } from '../errors.js';
import type { DependencyRow, ProjectRow, ResourceRow, TaskRow } from '../model/rows.js';
import { ensureIntegrationMember } from '../service/identity.js';
import { param, type HandlerContext } from './context.js';

function admitToProject(context: HandlerContext, project: ProjectRow): ProjectRow {
  if (!context.core.state.canSee(context.token, project)) {
    throw forbidden(`this token has no access to project ${project.id}`);
  }
  return project;
}

function projectOf(context: HandlerContext, projectId: string): ProjectRow {
  const project = context.core.state.projects.get(projectId);
  if (project === undefined) throw notFound(`project ${projectId} does not exist`);
  return project;
}

/** The project named by the `projectId` parameter, if the token may see it. */
export function pathProject(context: HandlerContext): ProjectRow {
  return admitToProject(context, projectOf(context, param(context, 'projectId')));
}

/** The task named by the `taskId` parameter and its project, if the token may see them. */
export function pathTask(context: HandlerContext): { task: TaskRow; project: ProjectRow } {
  const id = param(context, 'taskId');
  const task = context.core.state.tasks.get(id);
  if (task === undefined) throw notFound(`task ${id} does not exist`);
  return { task, project: admitToProject(context, projectOf(context, task.projectId)) };
}

/** The resource named by the `resourceId` parameter and its project. */
export function pathResource(context: HandlerContext): {
  resource: ResourceRow;
  project: ProjectRow;
} {
  const id = param(context, 'resourceId');
  const resource = context.core.state.resources.get(id);
  if (resource === undefined) throw notFound(`resource ${id} does not exist`);
  return { resource, project: admitToProject(context, projectOf(context, resource.projectId)) };
}

/** The dependency named by the `dependencyId` parameter and its project. */
export function pathDependency(context: HandlerContext): {
  dependency: DependencyRow;
  project: ProjectRow;
} {
  const id = param(context, 'dependencyId');
  const dependency = context.core.state.dependencies.get(id);
  if (dependency === undefined) throw notFound(`dependency ${id} does not exist`);
  return {
    dependency,
    project: admitToProject(context, projectOf(context, dependency.projectId)),
  };
}

/** Refuses any write to a project that has a `readOnlyReason` (403 `project_read_only`). */
export function assertWritable(project: ProjectRow): void {
  if (project.readOnlyReason !== null) throw projectReadOnly(project.id, project.readOnlyReason);
}

/**
 * Records that the token wrote to `project`: its integration identity is on the roster from its
 * first successful write there on (reads and refused writes change nothing).
 */
export function workedIn(context: HandlerContext, project: ProjectRow): void {
  ensureIntegrationMember(context.core, project, context.token);
}
