/**
 * The service's records as the client sees them. The service may add fields at any time and may
 * omit ones listed here, so every record keeps its unknown fields and the mirror stores the whole
 * JSON object beside the typed columns.
 */

/** Any JSON object as received from the service. */
export type JsonObject = { [key: string]: unknown };

/** A project (spec section 2). */
export interface Project extends JsonObject {
  id: string;
  name: string;
  active: boolean;
  readOnlyReason: string | null;
}

/** Task statuses the simulator knows; any other string is stored as it comes. */
export const TASK_STATUSES = ['NotStarted', 'InProgress', 'Done'] as const;
export type KnownTaskStatus = (typeof TASK_STATUSES)[number];

/** A task (spec section 2, plus `updatedAt` from contract section 4). */
export interface Task extends JsonObject {
  id: string;
  name: string;
  startDate: string;
  endDate: string;
  status: string;
  progress: number;
  assigneeIds: string[];
  updatedAt?: string;
}

/** A member of a project's roster; `kind` is `integration` for a token's own identity. */
export interface Member extends JsonObject {
  id: string;
  name?: string;
  kind?: 'person' | 'integration' | string;
}

/** A resource of a project. */
export interface Resource extends JsonObject {
  id: string;
  name?: string;
}

/** A dependency between two tasks of a project. */
export interface Dependency extends JsonObject {
  id: string;
  predecessorId?: string;
  successorId?: string;
  type?: string;
}

/** The status derived from a progress value (contract section 4). */
export function statusForProgress(progress: number): KnownTaskStatus {
  if (progress <= 0) return 'NotStarted';
  if (progress >= 100) return 'Done';
  return 'InProgress';
}

/**
 * The progress implied by setting `status` alone on a task whose progress is `current`: Done is
 * 100, NotStarted is 0, InProgress keeps a progress already within 1..99 (else 1 from 0, 99 from
 * 100), and any other status keeps the progress unchanged.
 */
export function progressForStatus(status: string, current: number): number {
  if (status === 'Done') return 100;
  if (status === 'NotStarted') return 0;
  if (status === 'InProgress') return Math.min(99, Math.max(1, current));
  return current;
}

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE_PATTERN.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}
