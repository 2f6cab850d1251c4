/** The change feed's reading side (`projmirror changes`), read where the connection is. */
import { ChangesRepository, openChangeFeed, type ChangeFeed, type ChangeRow } from '../changes.js';
import type { MirrorHandle } from '../handle.js';

/** Reads the change feed of one mirror, once `check` found it has one. */
export class ChangeUnits {
  private readonly mirror: MirrorHandle;
  private feed: ChangeFeed | undefined;

  constructor(mirror: MirrorHandle) {
    this.mirror = mirror;
  }

  /** A usage error naming the mirror `name` when it has no change feed yet. */
  async check(name: string): Promise<void> {
    this.feed = await openChangeFeed(this.mirror, name);
  }

  /** The changes after `since`, at most `limit`, in `seq` order. */
  async after(since: number, limit: number): Promise<ChangeRow[]> {
    return await this.read().after(since, limit);
  }

  /** The last `seq` retention has pruned; 0 when it never pruned any. */
  async prunedThrough(): Promise<number> {
    return await this.read().prunedThrough();
  }

  /** The oldest `seq` kept, if any is. */
  async oldestKept(): Promise<number | undefined> {
    return await this.read().oldestKept();
  }

  private read(): ChangeFeed {
    // Prepared on first use: a mirror of an earlier schema has no feed to prepare against.
    this.feed ??= new ChangesRepository(this.mirror);
    return this.feed;
  }
}
