/** Dependencies, resources and members: each listed in full, never paged. */
import { dependencyJson, memberJson, resourceJson } from '../../model/rows.js';
import { addDependency, removeDependency, setDependencies } from '../../service/dependencies.js';
import { createResource, deleteResource, updateResource } from '../../service/resources.js';
import { parseDependency, parseDependencyList, parseResource } from '../../service/validate.js';
import { assertWritable, pathDependency, pathProject, pathResource, workedIn } from '../access.js';
import type { Handler } from '../context.js';
import { idempotentCreate } from '../idempotent.js';
import { empty, json } from '../response.js';

/** Every dependency of a project. */
export const listDependencies: Handler = (context) =>
  json(200, [...pathProject(context).dependencies.values()].map(dependencyJson));

/** Replaces a project's dependencies; answers the new set. */
export const setDependenciesHandler: Handler = (context) => {
  const project = pathProject(context);
  assertWritable(project);
  const inputs = parseDependencyList(context.body, project, context.core.state);
  const rows = setDependencies(context.core, project, inputs);
  workedIn(context, project);
  return json(200, rows.map(dependencyJson));
};

/** Adds a dependency (201), idempotently. */
export const addDependencyHandler: Handler = (context) => {
  const project = pathProject(context);
  return idempotentCreate(context, project, () => {
    assertWritable(project);
    const input = parseDependency(context.body, project, context.core.state);
    const row = addDependency(context.core, project, input);
    workedIn(context, project);
    return json(201, dependencyJson(row));
  });
};

/** Removes a dependency (204). */
export const removeDependencyHandler: Handler = (context) => {
  const { dependency, project } = pathDependency(context);
  assertWritable(project);
  removeDependency(context.core, project, dependency);
  workedIn(context, project);
  return empty(204);
};

/** Every resource of a project. */
export const listResources: Handler = (context) =>
  json(200, [...pathProject(context).resources.values()].map(resourceJson));

/** Creates a resource (201), idempotently. */
export const createResourceHandler: Handler = (context) => {
  const project = pathProject(context);
  return idempotentCreate(context, project, () => {
    assertWritable(project);
    const input = parseResource(context.body);
    const row = createResource(context.core, project, input);
    workedIn(context, project);
    return json(201, resourceJson(row));
  });
};

/** Renames a resource. */
export const updateResourceHandler: Handler = (context) => {
  const { resource, project } = pathResource(context);
  assertWritable(project);
  const input = parseResource(context.body);
  updateResource(context.core, resource, input);
  workedIn(context, project);
  return json(200, resourceJson(resource));
};

/** Deletes a resource (204). */
export const deleteResourceHandler: Handler = (context) => {
  const { resource, project } = pathResource(context);
  assertWritable(project);
  deleteResource(context.core, project, resource);
  workedIn(context, project);
  return empty(204);
};

/** Every member of a project, integration identities included. */
export const listMembers: Handler = (context) =>
  json(200, [...pathProject(context).members.values()].map(memberJson));
