/**
 * What every service operation works on: the state, the clock, the readings of what the spec
 * leaves open, and the realtime publisher.
 */
import type { Clock, EventType, JsonObject, RealtimeEvent } from '../../domain/index.js';
import { notFound } from '../errors.js';
import type { ProjectRow, TaskRow } from '../model/rows.js';
import type { SimState } from '../model/state.js';
import type { SimReadings } from '../readings.js';

/** The shared context of the service operations. */
export interface Core {
  state: SimState;
  clock: Clock;
  /** The readings of what the spec leaves open that this simulator plays. */
  readings: Readonly<SimReadings>;
  /** Broadcasts one write to every realtime connection whose token sees the project. */
  publish: (event: RealtimeEvent) => void;
}

/** The clock's time as an ISO timestamp, for `updatedAt`. */
export function timestamp(core: Core): string {
  return new Date(core.clock.now()).toISOString();
}

/** Publishes a write; `id` and `data` are left out when undefined. */
export function emit(
  core: Core,
  type: EventType,
  projectId: string,
  id?: string,
  data?: JsonObject,
): void {
  const event: RealtimeEvent = { type, projectId };
  if (id !== undefined) event.id = id;
  if (data !== undefined) event.data = data;
  core.publish(event);
}

/** The project with `id`, or 404. */
export function projectById(core: Core, id: string): ProjectRow {
  const project = core.state.projects.get(id);
  if (project === undefined) throw notFound(`project ${id} does not exist`);
  return project;
}

/** The task with `id`, or 404. */
export function taskById(core: Core, id: string): TaskRow {
  const task = core.state.tasks.get(id);
  if (task === undefined) throw notFound(`task ${id} does not exist`);
  return task;
}

/** The project a task belongs to. */
export function projectOfTask(core: Core, task: TaskRow): ProjectRow {
  return projectById(core, task.projectId);
}
