/** Bodies of valid outbox edits for the tests. */

/** A valid task.create body (name, dates and status are required) with `extra` fields. */
export function newTask(
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { name, startDate: '2026-05-01', endDate: '2026-05-03', status: 'NotStarted', ...extra };
}

/** `newTask` as the JSON text a SQL INSERT would hold. */
export function newTaskJson(name: string): string {
  return JSON.stringify(newTask(name));
}
