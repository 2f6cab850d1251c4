/** The task operations: list (paged, with per-page ETags), create, get, update, delete, etc. */
import { taskJson } from '../../model/rows.js';
import { createTask, deleteTask, reorderTasks, updateTask } from '../../service/tasks.js';
import {
  parseAssignees,
  parseNewTask,
  parseReorder,
  parseTaskChanges,
} from '../../service/validate.js';
import { assertWritable, pathProject, pathTask, workedIn } from '../access.js';
import { header, type Handler } from '../context.js';
import { idempotentCreate } from '../idempotent.js';
import { parsePaging } from '../paging.js';
import { empty, json } from '../response.js';
import { conditional } from './projects.js';

/** The header giving the size of the whole collection on every page. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

/** One page of a project's tasks; the ETag is computed from that page's rows only. */
export const listTasks: Handler = async (context) => {
  const project = pathProject(context);
  const { page, pageSize } = parsePaging(
    context.query,
    context.paging.defaultPageSize,
    context.paging.maxPageSize,
  );
  await context.faults.runPageHooks(project.id, page);
  const rows = project.tasks.page((page - 1) * pageSize, pageSize);
  const body = JSON.stringify(rows.map(taskJson));
  return conditional(body, header(context, 'if-none-match'), {
    [TOTAL_COUNT_HEADER]: String(project.tasks.size),
  });
};

/** Creates a task (201), idempotently. */
export const createTaskHandler: Handler = (context) => {
  const project = pathProject(context);
  return idempotentCreate(context, project, () => {
    assertWritable(project);
    const task = createTask(
      context.core,
      project,
      parseNewTask(context.body, project),
      context.token,
    );
    workedIn(context, project);
    return json(201, taskJson(task), { Location: `/v1/tasks/${encodeURIComponent(task.id)}` });
  });
};

/** One task. */
export const getTask: Handler = (context) => json(200, taskJson(pathTask(context).task));

/** Updates a task's fields, with the derivation rules. */
export const updateTaskHandler: Handler = (context) => {
  const { task, project } = pathTask(context);
  assertWritable(project);
  const changes = parseTaskChanges(context.body, project);
  updateTask(context.core, task, changes);
  workedIn(context, project);
  return json(200, taskJson(task));
};

/** Deletes a task (204). */
export const deleteTaskHandler: Handler = (context) => {
  const { task, project } = pathTask(context);
  assertWritable(project);
  deleteTask(context.core, project, task);
  workedIn(context, project);
  return empty(204);
};

/** Reorders tasks (204); see `TaskList.reorder` for the semantics. */
export const reorderTasksHandler: Handler = (context) => {
  const project = pathProject(context);
  assertWritable(project);
  reorderTasks(context.core, project, parseReorder(context.body, project, context.core.state));
  workedIn(context, project);
  return empty(204);
};

/** Replaces a task's assignees. */
export const setAssignees: Handler = (context) => {
  const { task, project } = pathTask(context);
  assertWritable(project);
  const assigneeIds = parseAssignees(context.body, project);
  updateTask(context.core, task, { assigneeIds });
  workedIn(context, project);
  return json(200, taskJson(task));
};
