/** Dependency writes: add, remove, replace the project's set, and the cascade on task delete. */
import { validationFailed } from '../errors.js';
import { dependencyJson, type DependencyRow, type ProjectRow } from '../model/rows.js';
import { emit, type Core } from './core.js';
import type { NewDependency } from './validate.js';

function samePair(a: DependencyRow, b: NewDependency): boolean {
  return a.predecessorId === b.predecessorId && a.successorId === b.successorId;
}

/** Adds one dependency; 400 when the project already has one between the same two tasks. */
export function addDependency(
  core: Core,
  project: ProjectRow,
  input: NewDependency,
): DependencyRow {
  for (const existing of project.dependencies.values()) {
    if (samePair(existing, input)) {
      throw validationFailed(
        `dependency ${input.predecessorId} -> ${input.successorId} already exists (${existing.id})`,
      );
    }
  }
  if (input.id !== undefined && core.state.dependencies.has(input.id)) {
    throw validationFailed(`dependency id ${input.id} is already used`);
  }
  const row: DependencyRow = {
    id: input.id ?? core.state.newId('d'),
    projectId: project.id,
    predecessorId: input.predecessorId,
    successorId: input.successorId,
    type: input.type,
  };
  project.dependencies.set(row.id, row);
  core.state.dependencies.set(row.id, row);
  emit(core, 'dependency.changed', project.id, row.id, dependencyJson(row));
  return row;
}

/** Removes one dependency. */
export function removeDependency(core: Core, project: ProjectRow, row: DependencyRow): void {
  project.dependencies.delete(row.id);
  core.state.dependencies.delete(row.id);
  emit(core, 'dependency.changed', project.id, row.id);
}

/**
 * Replaces the project's dependencies with `inputs`. An item keeps the id it names; an item
 * without one keeps the id of an existing dependency between the same tasks, else gets a new id.
 * Announced by the `setDependencies` reading (see `announceSet`).
 */
export function setDependencies(
  core: Core,
  project: ProjectRow,
  inputs: readonly NewDependency[],
): DependencyRow[] {
  const previous = [...project.dependencies.values()];
  const claimed = new Set(inputs.flatMap((input) => (input.id === undefined ? [] : [input.id])));
  for (const row of previous) core.state.dependencies.delete(row.id);
  project.dependencies.clear();
  for (const input of inputs) {
    const reuse = previous.find((row) => samePair(row, input) && !claimed.has(row.id));
    const id = input.id ?? reuse?.id ?? core.state.newId('d');
    claimed.add(id);
    const row: DependencyRow = { ...input, id, projectId: project.id };
    project.dependencies.set(id, row);
    core.state.dependencies.set(id, row);
  }
  announceSet(core, project, previous);
  return [...project.dependencies.values()];
}

/**
 * Under `one-message`, one `dependency.changed` without `id`; under `per-record`, one per
 * removed dependency (without data), then one per added or changed one (with data).
 */
function announceSet(core: Core, project: ProjectRow, previous: readonly DependencyRow[]): void {
  if (core.readings.setDependencies === 'one-message') {
    emit(core, 'dependency.changed', project.id);
    return;
  }
  const before = new Map(previous.map((row) => [row.id, JSON.stringify(dependencyJson(row))]));
  for (const row of previous) {
    if (!project.dependencies.has(row.id)) emit(core, 'dependency.changed', project.id, row.id);
  }
  for (const row of project.dependencies.values()) {
    const data = dependencyJson(row);
    if (before.get(row.id) !== JSON.stringify(data)) {
      emit(core, 'dependency.changed', project.id, row.id, data);
    }
  }
}

/** Removes every dependency naming `taskId` (when the task is deleted). */
export function removeDependenciesOfTask(core: Core, project: ProjectRow, taskId: string): void {
  for (const row of [...project.dependencies.values()]) {
    if (row.predecessorId === taskId || row.successorId === taskId) {
      removeDependency(core, project, row);
    }
  }
}
