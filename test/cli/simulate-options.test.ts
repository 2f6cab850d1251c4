import { describe, expect, it } from 'vitest';
import type { ArgumentsCamelCase } from 'yargs';
import { simulatorOptionsFromArgs } from '../../src/cli/commands/simulate.js';

/** The parsed flags of `simulate` with their defaults, and `host`. */
const args = (host: string) =>
  ({
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
