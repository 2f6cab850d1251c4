/** A read-only query written by hand (the demo's examples), run over the mirror. */
import { connectionOf, type MirrorHandle } from './handle.js';

/** What a query answers: its column names and its rows, each as an array. */
export interface QueryRows {
  columns: string[];
  rows: unknown[][];
}

/** Runs `sql` over `mirror`; its column names and rows (as arrays). */
export async function queryRows(mirror: MirrorHandle, sql: string): Promise<QueryRows> {
  const statement = connectionOf(mirror).prepare(sql);
  const columns = (await statement.columns()).map((column) => column.name);
  return { columns, rows: (await statement.raw().all()) as unknown[][] };
}
