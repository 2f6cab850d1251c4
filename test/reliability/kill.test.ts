/**
 * kill -9 at seeded random points of `projmirror sync` and of `projmirror push`, ten rounds each
 * with restarts (kill-sync.ts, kill-push.ts). The two sequences use separate simulators and files
 * and run side by side, so that their child processes share the machine's cores.
 */
import { describe, expect, it } from 'vitest';
import { killPushRounds } from './kill-push.js';
import { killSyncRounds } from './kill-sync.js';

describe('kill -9 with restarts', () => {
  it('syncs: intact file, whole passes, convergence; pushes: no item lost, none duplicated', async () => {
    const [syncKills, pushKills] = await Promise.all([killSyncRounds(), killPushRounds()]);
    expect(syncKills).toBeGreaterThanOrEqual(9);
    expect(pushKills).toBeGreaterThanOrEqual(8);
  }, 60_000);
});
