/**
 * Who may touch what. A project that does not exist is 404; one the token cannot see is 403
 * `forbidden` (for project tokens: not granted; for account tokens: not the user's). Records
 * reached by their own id (tasks, resources, dependencies) of a project the token cannot see
 * answer by the `hiddenRecord` reading: 403, or 404 as if they did not exist. Under the
 * `first-request` identity reading, admission to a project creates the token's integration
 * identity there.
 */
import { forbidden, notFound, projectReadOnly } from '../errors.js';
import type { DependencyRow, ProjectRow, ResourceRow, TaskRow } from '../model/rows.js';
import { ensureIntegrationMember } from '../service/identity.js';
import { param, type HandlerContext } from './context.js';

function admitToProject(context: HandlerContext, project: ProjectRow): ProjectRow {
  if (!context.core.state.canSee(context.token, project)) {
    throw forbidden(`this token has no access to project ${project.id}`);
  }
  if (context.core.readings.identity === 'first-request') {
    ensureIntegrationMember(context.core, project, context.token);
  }
  return project;
}

/** The project of a record reached by its id, if the token may see it (else by `hiddenRecord`). */
function admitToRecordProject(
  context: HandlerContext,
  projectId: string,
  record: string,
): ProjectRow {
  const project = projectOf(context, projectId);
  const hidden = !context.core.state.canSee(context.token, project);
  if (hidden && context.core.readings.hiddenRecord === 404) throw missing(record);
  return admitToProject(context, project);
}

function missing(record: string) {
  return notFound(`${record} does not exist`);
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
  if (task === undefined) throw missing(`task ${id}`);
  return { task, project: admitToRecordProject(context, task.projectId, `task ${id}`) };
}

/** The resource named by the `resourceId` parameter and its project. */
export function pathResource(context: HandlerContext): {
  resource: ResourceRow;
  project: ProjectRow;
} {
  const id = param(context, 'resourceId');
  const resource = context.core.state.resources.get(id);
  if (resource === undefined) throw missing(`resource ${id}`);
  const project = admitToRecordProject(context, resource.projectId, `resource ${id}`);
  return { resource, project };
}

/** The dependency named by the `dependencyId` parameter and its project. */
export function pathDependency(context: HandlerContext): {
  dependency: DependencyRow;
  project: ProjectRow;
} {
  const id = param(context, 'dependencyId');
  const dependency = context.core.state.dependencies.get(id);
  if (dependency === undefined) throw missing(`dependency ${id}`);
  const project = admitToRecordProject(context, dependency.projectId, `dependency ${id}`);
  return { dependency, project };
}

/** Refuses any write to a project that has a `readOnlyReason` (403 `project_read_only`). */
export function assertWritable(project: ProjectRow): void {
  if (project.readOnlyReason !== null) throw projectReadOnly(project.id, project.readOnlyReason);
}

/**
 * Records that the token wrote to `project`: its integration identity is on the roster from its
 * first successful write there on (under `first-write`, reads and refused writes change nothing).
 */
export function workedIn(context: HandlerContext, project: ProjectRow): void {
  ensureIntegrationMember(context.core, project, context.token);
}
