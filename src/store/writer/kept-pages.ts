/** The kept pages of a pass, read back on the store thread by its writer and its survey. */
import type { MirrorStore } from '../mirror-store.js';
import { keptPageMissing, type KeptPage } from '../task-pages.js';
import { rowsOfKept, type TaskRows } from '../task-rows.js';

/** The kept copy of a page, which must be there. */
export async function keptPage(
  store: MirrorStore,
  projectId: string,
  pageSize: number,
  page: number,
): Promise<KeptPage> {
  const kept = await store.taskPages.get(projectId, pageSize, page);
  if (kept === undefined) throw keptPageMissing(projectId, page);
  return kept;
}

/** The rows of a kept page, which must be there, each parsed from its own text. */
export async function keptRows(
  store: MirrorStore,
  projectId: string,
  pageSize: number,
  page: number,
): Promise<TaskRows> {
  return rowsOfKept((await keptPage(store, projectId, pageSize, page)).rows);
}
