/**
 * The store's host: every unit of work over one connection, grouped by what the engines need.
 * It runs where the connection is (the store thread), one unit at a time, each to its end
 * (`queue.ts`); `PortOf<StoreHost>` is how everything else asks it.
 */
import { SOLE_OWNER, type Clock } from '../../domain/index.js';
import type { MirrorHandle } from '../handle.js';
import { MirrorFacts } from '../mirror-facts.js';
import type { MirrorPort, ReportsPort, Store } from '../port.js';
import { MirrorUnits } from './mirror-units.js';
import type { PortOf } from './units.js';
import { ChangeUnits } from './change-units.js';
import { ExampleUnits } from './example-units.js';
import { HealthUnits } from './health-units.js';
import { LeaseUnits, type LeaseKeeper } from './leases.js';
import { OutboxUnits } from './outbox-units.js';
import { PassGroups } from './pass-units.js';
import { ReportUnits, SnapshotGroups } from './report-units.js';
import { StateUnits } from './state-units.js';
import { StatusUnits } from './status-units.js';

/**
 * Builds the units over `handle`, writing with `clock`'s time, fenced by the leases of `keeper` (a
 * PostgreSQL mirror's) or owning every project.
 */
export function createHost(handle: MirrorHandle, clock: Clock, keeper?: LeaseKeeper) {
  const fence = keeper ?? SOLE_OWNER;
  // Each pass in flight joins the host as a group of its own (`StorePass`) until it ends.
  const passes = new PassGroups();
  // So does each snapshot of the reporting views an export reads (`ViewSnapshotUnits`).
  const snapshots = new SnapshotGroups();
  // Each group prepares its statements when first asked: an inline store over a mirror a reader
  // opened unmigrated (an earlier schema) builds only the groups its command asks.
  const mirror = once(() => new MirrorUnits(handle, clock, fence, passes));
  const outbox = once(() => new OutboxUnits(handle, fence, mirror()));
  const state = once(() => new StateUnits(handle));
  const facts = once(() => new MirrorFacts(handle));
  const health = once(() => new HealthUnits(handle));
  const examples = once(() => new ExampleUnits(handle));
  const changes = once(() => new ChangeUnits(handle));
  const status = once(() => new StatusUnits(handle));
  const reports = once(() => new ReportUnits(handle, snapshots));
  const host = {
    get mirror() {
      return mirror();
    },
    get outbox() {
      return outbox();
    },
    leases: new LeaseUnits(keeper),
    get state() {
      return state();
    },
    get facts() {
      return facts();
    },
    get health() {
      return health();
    },
    get examples() {
      return examples();
    },
    get changes() {
      return changes();
    },
    get status() {
      return status();
    },
    get reports() {
      return reports();
    },
  };
  passes.attach(host);
  snapshots.attach(host);
  return host;
}

/** `make`'s value, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

/** The units of one connection. */
export type StoreHost = ReturnType<typeof createHost>;

/**
 * Every unit the store's port names, answered by the host with its types (checked by tsc); a
 * pass begun is answered as a handle (`storeOver`).
 */
type StoreUnits = Omit<Store, 'progress' | 'close' | 'mirror' | 'reports'> & {
  mirror: Omit<MirrorPort, 'passBegin'>;
  reports: Omit<ReportsPort, 'snapshot'>;
};
const _answersEveryPort: PortOf<StoreHost> extends StoreUnits ? true : never = true;
