/**
 * The store on the caller's own thread: the host's units run in order, each answered by a
 * promise. For a connection the caller already holds (tests, benchmarks); a daemon's mirror is
 * always on a store thread (`thread.ts`).
 */
import type { Clock } from '../../domain/index.js';
import type { MirrorHandle } from '../handle.js';
import { createHost } from './host.js';
import type { LeaseKeeper } from './leases.js';
import type { Store } from '../port.js';
import { SerialQueue } from './queue.js';
import { storeOver } from './store-face.js';
import { runUnit, UnitTracker } from './units.js';

/**
 * A store whose units run on this thread over `mirror`, which `close()` closes when `owned`; in
 * the line of `queue` when given (shared with the leases' heartbeats).
 */
export function inlineStore(
  mirror: MirrorHandle,
  options: { clock: Clock; keeper?: LeaseKeeper | undefined; owned?: boolean; queue?: SerialQueue },
): Store {
  const host = createHost(mirror, options.clock, options.keeper);
  const tracker = new UnitTracker(() => Date.now());
  const queue = options.queue ?? new SerialQueue();
  let next = 0;
  const ask = (group: string, method: string, args: unknown[]): Promise<unknown> => {
    const id = next++;
    tracker.begin(id);
    return queue
      .run(() => runUnit(host as never, group, method, args))
      .finally(() => tracker.end(id));
  };
  return storeOver(ask, {
    progress: () => tracker.progress(),
    close: async () => {
      await queue.drained();
      if (options.owned && mirror.open) mirror.close();
    },
  }).store;
}
