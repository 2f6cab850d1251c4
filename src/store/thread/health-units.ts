/** The store's proof of life and upkeep: units that need what every write needs. */
import type { MirrorHandle } from '../handle.js';
import { walCheckpoint, type CheckpointResult } from '../wal.js';
import { writeProbe } from '../writable.js';

/** Probes the database as a writer would meet it, and checkpoints its write-ahead log. */
export class HealthUnits {
  private readonly probe: () => Promise<void>;
  private readonly wal: (() => CheckpointResult) | undefined;

  constructor(mirror: MirrorHandle) {
    this.probe = writeProbe(mirror);
    this.wal = walCheckpoint(mirror);
  }

  /** Takes and gives back the write lock; waits, as writes do, while another writer holds it. */
  probeWrite(): Promise<void> {
    return this.probe();
  }

  /** Checkpoints the write-ahead log (SQLite); undefined on PostgreSQL. */
  checkpoint(): Promise<CheckpointResult | undefined> {
    return Promise.resolve(this.wal?.());
  }
}
