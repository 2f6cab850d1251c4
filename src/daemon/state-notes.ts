/** The daemon's rows in the mirror's state table, which `status` reads. */
import type { Logger } from 'pino';
import { errorLine } from '../domain/index.js';
import type { Store } from '../store/port.js';
import type { DiskWatch } from './disk-watch.js';

/** Saves daemon state keys; a store that is away only costs a warning. */
export class StateNotes {
  constructor(
    private readonly state: Pick<Store['state'], 'set' | 'delete'>,
    private readonly logger: Logger,
    /** A full disk is the disk watch's to tell. */
    private readonly disk: Pick<DiskWatch, 'absorbs'>,
  ) {}

  /** Saves `value` under `key`, as of `at`. */
  async save(key: string, value: unknown, at: string): Promise<void> {
    await this.state.set(key, value, at).catch((error: unknown) => {
      if (this.disk.absorbs(error)) return;
      this.logger.warn({ key, err: errorLine(error) }, 'could not save the daemon state');
    });
  }

  /** Deletes `key`, silently when the store is away. */
  async delete(key: string): Promise<void> {
    await this.state.delete(key).catch(() => undefined);
  }
}
