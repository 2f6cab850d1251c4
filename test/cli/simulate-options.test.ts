import { describe, expect, it } from 'vitest';
import type { ArgumentsCamelCase } from 'yargs';
import { simulatorOptionsFromArgs } from '../../src/cli/commands/simulate.js';
import { UsageError } from '../../src/domain/index.js';
import { ALTERNATE_READINGS, DEFAULT_READINGS } from '../../src/sim/index.js';

/** The parsed flags of `simulate` with their defaults, `host` and `extra`. */
const args = (host: string, extra: Record<string, unknown> = {}) =>
  ({
    ...extra,
    host,
    port: 0,
    seed: 1,
    projects: 2,
    tasks: 20,
    readOnlyProjects: 0,
    burst: 60,
    quota: 5000,
    dayMs: 86_400_000,
    ipLimit: 300,
    limits: true,
    realtimeData: true,
    delayMs: 0,
    _: [],
    $0: 'projmirror',
  }) as unknown as ArgumentsCamelCase;

describe('simulate --host', () => {
  it('serves loopback only', () => {
    expect(simulatorOptionsFromArgs(args('127.0.0.1')).host).toBe('127.0.0.1');
    expect(simulatorOptionsFromArgs(args('localhost')).host).toBe('localhost');
    expect(() => simulatorOptionsFromArgs(args('0.0.0.0'))).toThrow(
      /--host 0\.0\.0\.0 is not a loopback address/,
    );
  });
});

describe('simulate readings flags', () => {
  const readings = (extra: Record<string, unknown>) =>
    simulatorOptionsFromArgs(args('127.0.0.1', extra)).readings;

  it('default to DEFAULT_READINGS; --readings names a profile; each flag overrides one switch', () => {
    expect(readings({})).toEqual(DEFAULT_READINGS);
    expect(readings({ readings: 'alternate' })).toEqual(ALTERNATE_READINGS);
    expect(
      readings({ readings: 'alternate', hiddenRecord: '403', reorder: 'one-message' }),
    ).toEqual({ ...ALTERNATE_READINGS, hiddenRecord: 403, reorder: 'one-message' });
    expect(
      readings({
        identity: 'first-request',
        setDependencies: 'per-record',
        idempotency: 'json',
        statusMapping: 'coarse',
      }),
    ).toEqual({ ...ALTERNATE_READINGS, reorder: 'one-message', hiddenRecord: 403 });
  });

  it('a bad profile or value is a usage error naming it', () => {
    expect(() => readings({ readings: 'strict' })).toThrow(UsageError);
    expect(() => readings({ readings: 'strict' })).toThrow('--readings "strict" must be one of');
    expect(() => readings({ hiddenRecord: '410' })).toThrow(
      '--hidden-record "410" must be one of 403, 404',
    );
    expect(() => readings({ statusMapping: 'linear' })).toThrow(
      '--status-mapping "linear" must be one of contract, coarse',
    );
  });
});
