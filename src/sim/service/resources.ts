/** Resource writes. */
import { resourceJson, type ProjectRow, type ResourceRow } from '../model/rows.js';
import { emit, type Core } from './core.js';

/** Adds a resource to a project. */
export function createResource(
  core: Core,
  project: ProjectRow,
  input: { name: string },
  id?: string,
): ResourceRow {
  const row: ResourceRow = {
    id: id ?? core.state.newId('r'),
    projectId: project.id,
    name: input.name,
  };
  project.resources.set(row.id, row);
  core.state.resources.set(row.id, row);
  emit(core, 'resource.changed', project.id, row.id, resourceJson(row));
  return row;
}

/** Renames a resource. */
export function updateResource(core: Core, row: ResourceRow, input: { name: string }): ResourceRow {
  row.name = input.name;
  emit(core, 'resource.changed', row.projectId, row.id, resourceJson(row));
  return row;
}

/** Deletes a resource. */
export function deleteResource(core: Core, project: ProjectRow, row: ResourceRow): void {
  project.resources.delete(row.id);
  core.state.resources.delete(row.id);
  emit(core, 'resource.changed', project.id, row.id);
}
