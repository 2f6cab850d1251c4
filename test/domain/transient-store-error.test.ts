/** Which store errors are worth trying again: a database away or busy, not a bad statement. */
import { describe, expect, it } from 'vitest';
import { isTransientStoreError } from '../../src/domain/index.js';

const pg = (sqlState: string | undefined) => ({ name: 'PgError', message: 'x', sqlState });

describe('isTransientStoreError', () => {
  it('is true for a held lock, a lost or stalled connection and a server going down', () => {
    for (const error of [
      { name: 'SqliteError', code: 'SQLITE_BUSY', message: 'database is locked' },
      { name: 'SqliteError', code: 'SQLITE_BUSY_SNAPSHOT', message: 'x' },
      pg('08006'),
      pg('57P01'),
      pg('40P01'),
      pg('55P03'),
      pg(undefined),
      new Error('PostgreSQL did not answer within 90 s'),
    ]) {
      expect(isTransientStoreError(error), JSON.stringify(error)).toBe(true);
    }
  });

  it('is false for what the same statement would meet again', () => {
    for (const error of [
      { name: 'SqliteError', code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'x' },
      pg('42P18'), // could not determine data type of parameter
      pg('23505'),
      new TypeError('x is not a function'),
      undefined,
    ]) {
      expect(isTransientStoreError(error), JSON.stringify(error)).toBe(false);
    }
  });
});
