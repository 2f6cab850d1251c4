/**
 * The store as the engines hold it (`Store`), over a function that asks the host a unit, on the
 * store thread (`thread.ts`) or on this one (`inline.ts`): the host's groups as the port's, and
 * each pass begun as a handle of its own (`PassHandle`) over its group of units, as each snapshot
 * of the reporting views opened is.
 */
import type { MirrorPort, Pass, ReportsPort, Store, ViewSnapshot } from '../port.js';
import type { StoreHost } from './host.js';
import { PassHandle } from './pass-handle.js';
import type { StorePass } from './pass-units.js';
import type { ViewSnapshotUnits } from './report-units.js';
import { groupOver, portOver, type AskUnit, type PortOf } from './units.js';

/** The store over `ask`, with its progress and `close`; and the host's port, for the leases. */
export function storeOver(
  ask: AskUnit,
  own: Pick<Store, 'progress' | 'close'>,
): { store: Store; port: PortOf<StoreHost> } {
  const port = portOver<StoreHost>(ask);
  const mirror: MirrorPort = Object.assign(Object.create(port.mirror) as MirrorPort, {
    async passBegin(projectId: string): Promise<Pass> {
      const opened = await port.mirror.passBegin(projectId);
      return new PassHandle(projectId, opened, groupOver<StorePass>(ask, opened.group));
    },
  });
  const reports: ReportsPort = Object.assign(Object.create(port.reports) as ReportsPort, {
    async snapshot(): Promise<ViewSnapshot> {
      const { group } = await port.reports.snapshot();
      return groupOver<ViewSnapshotUnits>(ask, group);
    },
  });
  const store: Store = Object.assign(Object.create(port) as Store, { ...own, mirror, reports });
  return { store, port };
}
