import { describe, expect, it } from 'vitest';
import { valueKind } from '../../src/store/data-fields.js';
import { MirrorStore } from '../../src/store/mirror-store.js';
import { tempDatabase } from '../fixtures/db.js';

const AT = '2026-11-21T00:00:00.000Z';

describe('FieldCatalog', () => {
  it('classifies values as json_each reads their stored text', () => {
    expect(
      [
        '2026-01-05',
        '2026-01-05T09:30:00Z',
        '2026-01-05 09:30',
        'x',
        true,
        3,
        -0,
        2.5,
        1e21,
        null,
        [1],
        { a: 1 },
      ].map(valueKind),
    ).toEqual([
      'date',
      'timestamp',
      'timestamp',
      'text',
      'boolean',
      'integer',
      'integer',
      'real',
      'real',
      'null',
      'json',
      'json',
    ]);
  });

  it('writes only what is new, says once that the set grew, and forgets a rolled-back note', async () => {
    const { db } = tempDatabase();
    const store = new MirrorStore(db);
    const rows = () =>
      db
        .prepare('SELECT record_kind, field, value_type FROM data_fields ORDER BY 2, 3')
        .raw()
        .all();
    await store.transaction(() => store.fields.note('members', [{ id: 'm1', rate: 80 }], AT));
    expect(rows()).toEqual([
      ['members', 'id', 'text'],
      ['members', 'rate', 'integer'],
    ]);
    expect(store.fields.takeGrowth()).toBe(true);
    await store.transaction(() => store.fields.note('members', [{ id: 'm2', rate: 90 }], AT));
    expect(store.fields.takeGrowth()).toBe(false);
    await store.transaction(() => store.fields.note('members', [{ id: 'm3', rate: 92.5 }], AT));
    expect(rows()).toContainEqual(['members', 'rate', 'real']);
    expect(store.fields.takeGrowth()).toBe(true);

    await expect(
      store.transaction(async () => {
        await store.fields.note('members', [{ id: 'm4', hired: '2026-01-05' }], AT);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(rows()).not.toContainEqual(['members', 'hired', 'date']);
    await store.transaction(() =>
      store.fields.note('members', [{ id: 'm4', hired: '2026-01-05' }], AT),
    );
    expect(rows()).toContainEqual(['members', 'hired', 'date']);
  });
});
