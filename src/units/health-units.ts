/** The store's proof of life: a unit that needs what every write needs, and nothing else. */
import type { MirrorHandle } from '../store/handle.js';
import { writeProbe } from '../store/writable.js';

/** Probes the database as a writer would meet it. */
export class HealthUnits {
  private readonly probe: () => Promise<void>;

  constructor(mirror: MirrorHandle) {
    this.probe = writeProbe(mirror);
  }

  /** Takes and gives back the write lock; waits, as writes do, while another writer holds it. */
  probeWrite(): Promise<void> {
    return this.probe();
  }
}
