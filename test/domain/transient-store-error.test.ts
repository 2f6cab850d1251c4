/** Which store errors are worth trying again: a database away or busy, not a bad statement. */
import { describe, expect, it } from 'vitest';
import { isDiskFull, isTransientStoreError } from '../../src/domain/index.js';

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

describe('isDiskFull', () => {
  const full = [
    { name: 'SqliteError', code: 'SQLITE_FULL', message: 'database or disk is full' },
    { name: 'Error', code: 'ENOSPC', message: 'no space left on device' },
    pg('53100'),
    new Error('database or disk is full'),
  ];

  it('is true for a full disk on either engine, which is worth trying again', () => {
    for (const error of full) {
      expect(isDiskFull(error), JSON.stringify(error)).toBe(true);
      expect(isTransientStoreError(error), JSON.stringify(error)).toBe(true);
    }
  });

  it('is false for a lock or another failure', () => {
    for (const error of [
      { name: 'SqliteError', code: 'SQLITE_BUSY', message: 'database is locked' },
      { name: 'SqliteError', code: 'SQLITE_IOERR', message: 'disk I/O error' },
      pg('53200'), // out of memory
      undefined,
    ]) {
      expect(isDiskFull(error), JSON.stringify(error)).toBe(false);
    }
  });
});
