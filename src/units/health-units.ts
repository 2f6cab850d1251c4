/** The store's proof of life: a unit that needs what every write needs, and nothing else. */
import type { Db } from '../store/db.js';

/** Probes the database as a writer would meet it. */
export class HealthUnits {
  private readonly probe;

  constructor(db: Db) {
    // A DELETE that matches no row still takes the write lock (and, on PostgreSQL, a round trip).
    this.probe = db.transaction(() => db.prepare('DELETE FROM daemon_state WHERE 0 = 1').run());
  }

  /** Takes and gives back the write lock; waits, as writes do, while another writer holds it. */
  probeWrite(): void {
    this.probe.immediate();
  }
}
