/**
 * A page of tasks as the store writes them, made once on the thread that parsed and checked the
 * page: each task's id, typed columns and JSON text, column by column, with its assignments and
 * the fields its records hold. Only strings and numbers in flat arrays cross to the store's thread
 * (a structured copy of parsed objects cost twice what parsing their texts again did), and the
 * store parses no task again to insert a new one; it parses a task's text only to compare it with
 * an older copy it holds.
 */
import type { Task } from '../domain/index.js';
import { fieldShapes, type FieldShape } from './data-fields.js';
import { decodeRows } from './task-pages.js';
import { assigneesOf, dateColumn, numberColumn, textColumn, timestampColumn } from './values.js';

declare const PREPARED: unique symbol;

/**
 * A page of tasks prepared for the store (`preparePage`) on the thread that parsed it: what the
 * store's port carries. Its layout (`TaskRows`) is the store's own, opened only by `rowsOf`.
 */
export interface PreparedPage {
  readonly [PREPARED]: 'tasks';
}

/** Prepares the tasks of a page, in page order, for the store. */
export function preparePage(tasks: readonly Task[]): PreparedPage {
  return taskRows(tasks) as TaskRows & PreparedPage;
}

/** The store's rows of a page prepared by `preparePage`. */
export function rowsOf(page: PreparedPage): TaskRows {
  return page as PreparedPage & TaskRows;
}

/** A page of tasks, column by column, in page order. */
export interface TaskRows {
  ids: string[];
  names: Array<string | null>;
  starts: Array<string | null>;
  ends: Array<string | null>;
  statuses: Array<string | null>;
  progress: Array<number | null>;
  updated: Array<string | null>;
  /** Each task's JSON text, as `tasks.data` holds it. */
  texts: string[];
  /** Who is assigned to what, pair by pair (each task's members unique and sorted). */
  assignedTasks: string[];
  assignedMembers: string[];
  /** Each field of the records with each kind of value it holds, once (field discovery). */
  fields: FieldShape[];
}

/** A task's typed columns after `id, project_id`: name, start and end dates, status, progress, updated at. */
export function taskColumns(
  task: Task,
): [string | null, string | null, string | null, string | null, number | null, string | null] {
  return [
    textColumn(task.name),
    dateColumn(task.startDate),
    dateColumn(task.endDate),
    textColumn(task.status),
    numberColumn(task.progress),
    timestampColumn(task.updatedAt),
  ];
}

/** The rows of `tasks`, whose JSON texts are `texts` when the caller has them already. */
export function taskRows(tasks: readonly Task[], texts?: readonly string[]): TaskRows {
  const rows: TaskRows = { ...emptyRows(), fields: fieldShapes(tasks) };
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i]!;
    const [name, start, end, status, progress, updated] = taskColumns(task);
    rows.ids.push(task.id);
    rows.names.push(name);
    rows.starts.push(start);
    rows.ends.push(end);
    rows.statuses.push(status);
    rows.progress.push(progress);
    rows.updated.push(updated);
    rows.texts.push(texts?.[i] ?? JSON.stringify(task));
    for (const member of assigneesOf(task)) {
      rows.assignedTasks.push(task.id);
      rows.assignedMembers.push(member);
    }
  }
  return rows;
}

/** The rows of tasks kept as JSON texts (a kept page, see `encodeRows`), each parsed once. */
export function rowsOfKept(encoded: string): TaskRows {
  const texts = decodeRows(encoded);
  return taskRows(
    texts.map((text) => JSON.parse(text) as Task),
    texts,
  );
}

/**
 * The rows of `rows` whose ids `keep` accepts, in the same order; `rows` itself if all are. The
 * fields are those of the rows kept (their texts parsed again: a row is dropped rarely, when a
 * write during the pass holds a later copy of its task).
 */
export function pickRows(rows: TaskRows, keep: (id: string) => boolean): TaskRows {
  if (rows.ids.every(keep)) return rows;
  const picked = emptyRows();
  rows.ids.forEach((id, i) => {
    if (!keep(id)) return;
    picked.ids.push(id);
    picked.names.push(rows.names[i]!);
    picked.starts.push(rows.starts[i]!);
    picked.ends.push(rows.ends[i]!);
    picked.statuses.push(rows.statuses[i]!);
    picked.progress.push(rows.progress[i]!);
    picked.updated.push(rows.updated[i]!);
    picked.texts.push(rows.texts[i]!);
  });
  rows.assignedTasks.forEach((taskId, i) => {
    if (!keep(taskId)) return;
    picked.assignedTasks.push(taskId);
    picked.assignedMembers.push(rows.assignedMembers[i]!);
  });
  picked.fields = fieldShapes(picked.texts.map((text) => JSON.parse(text) as object));
  return picked;
}

/** A page of no task. */
export function emptyRows(): TaskRows {
  return {
    ids: [],
    names: [],
    starts: [],
    ends: [],
    statuses: [],
    progress: [],
    updated: [],
    texts: [],
    assignedTasks: [],
    assignedMembers: [],
    fields: [],
  };
}
