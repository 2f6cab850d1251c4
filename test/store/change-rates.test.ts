/** `change_rates` on both engines: what is saved is read back, updated in place, and forgotten. */
import { describe, expect, it } from 'vitest';
import { ChangeRateRepository } from '../../src/store/change-rates.js';
import { bothEngines } from '../fixtures/both-engines.js';

const engines = bothEngines();
const AT = '2026-11-21T10:00:00.000Z';
const LOOKED = Date.parse('2026-11-21T09:30:00.000Z');

describe('ChangeRateRepository', () => {
  it("keeps each item's evidence and when it was looked at, on SQLite and PostgreSQL", async () => {
    for (const db of await engines()) {
      const rates = new ChangeRateRepository(db);
      await rates.delete(['p_1', 'p_2']);
      const state = {
        at: LOOKED,
        buckets: [{ key: 48, polls: 2, changed: 1, intervalMs: 7.2e6 }],
        events: 0,
        eventExposureMs: 0,
      };
      await rates.save(
        [
          { key: 'p_1', state, lookedAt: LOOKED },
          { key: 'p_2', state: { ...state, buckets: [] }, lookedAt: undefined },
        ],
        AT,
      );
      await rates.save([{ key: 'p_2', state, lookedAt: LOOKED + 1 }], AT);
      expect(await rates.all(), db.dialect).toEqual([
        { key: 'p_1', state, lookedAt: LOOKED },
        { key: 'p_2', state, lookedAt: LOOKED + 1 },
      ]);
      await rates.delete(['p_1']);
      expect((await rates.all()).map((row) => row.key)).toEqual(['p_2']);
    }
  });
});
