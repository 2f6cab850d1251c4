/**
 * The two mappings between a task's progress and its status (the `statusMapping` reading):
 * what an update or create that sends only one of the two fields derives for the other.
 */
import { progressForStatus, statusForProgress } from '../../domain/index.js';
import type { StatusMappingReading } from '../readings.js';

/** Derives the field a write did not send from the one it did. */
export interface StatusMapping {
  /** The status implied by `progress` sent alone. */
  statusFor(progress: number): string;
  /** The progress implied by `status` sent alone on a task whose progress is `current`. */
  progressFor(status: string, current: number): number;
}

/** Under `coarse`, progress from this value up (below 100) is InProgress. */
export const COARSE_IN_PROGRESS_FROM = 50;

const CONTRACT: StatusMapping = {
  statusFor: statusForProgress,
  progressFor: progressForStatus,
};

const COARSE: StatusMapping = {
  statusFor: (progress) => {
    if (progress >= 100) return 'Done';
    return progress >= COARSE_IN_PROGRESS_FROM ? 'InProgress' : 'NotStarted';
  },
  progressFor: (status, current) => {
    if (status === 'Done') return 100;
    if (status === 'NotStarted') return 0;
    if (status === 'InProgress') return COARSE_IN_PROGRESS_FROM;
    return current;
  },
};

/** The mapping a reading names. */
export function statusMapping(reading: StatusMappingReading): StatusMapping {
  return reading === 'coarse' ? COARSE : CONTRACT;
}
