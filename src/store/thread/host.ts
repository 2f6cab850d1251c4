/**
 * The store's host: every unit of work over one connection, grouped by what the engines need.
 * It runs where the connection is (the store thread), one unit at a time, each to its end
 * (`queue.ts`); `PortOf<StoreHost>` is how everything else asks it.
 */
import { SOLE_OWNER, type Clock } from '../../domain/index.js';
import type { MirrorHandle } from '../handle.js';
import { MirrorFacts } from '../mirror-facts.js';
import type { MirrorPort, Store } from '../port.js';
import { MirrorUnits } from './mirror-units.js';
import type { PortOf } from './units.js';
import { ChangeUnits } from './change-units.js';
import { ExampleUnits } from './example-units.js';
import { HealthUnits } from './health-units.js';
import { LeaseUnits, type LeaseKeeper } from './leases.js';
import { OutboxUnits } from './outbox-units.js';
import { PassGroups } from './pass-units.js';
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
  const mirror = new MirrorUnits(handle, clock, fence, passes);
  const host = {
    mirror,
    outbox: new OutboxUnits(handle, fence, mirror),
    leases: new LeaseUnits(keeper),
    state: new StateUnits(handle),
    facts: new MirrorFacts(handle),
    health: new HealthUnits(handle),
    examples: new ExampleUnits(handle),
    changes: new ChangeUnits(handle),
    status: new StatusUnits(handle),
  };
  passes.attach(host);
  return host;
}

/** The units of one connection. */
export type StoreHost = ReturnType<typeof createHost>;

/**
 * Every unit the store's port names, answered by the host with its types (checked by tsc); a
 * pass begun is answered as a handle (`storeOver`).
 */
type StoreUnits = Omit<Store, 'progress' | 'close' | 'mirror'> & {
  mirror: Omit<MirrorPort, 'passBegin'>;
};
const _answersEveryPort: PortOf<StoreHost> extends StoreUnits ? true : never = true;
