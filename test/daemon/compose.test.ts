/**
 * One composition root for the daemon (issue 36): `daemon.ts` keeps the lifecycle only, and no
 * file of `src/` but `compose.ts` constructs the daemon's parts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');
const COMPOSE = 'daemon/compose.ts';
/** The daemon's parts: each constructed in `compose.ts` alone. */
const PARTS = [
  'Daemon',
  'PollScheduler',
  'PollRates',
  'Planner',
  'PlanLedger',
  'Passes',
  'ListingRetry',
  'MissedWork',
  'PlanFacts',
  'Freshness',
  'StoreWatch',
  'WalWatch',
  'DiskWatch',
  'RefreshLimiter',
  'ChangeApplier',
  'ChangeRouter',
  'Coalescer',
  'RealtimeLinks',
  'RealtimeStatus',
  'Schedules',
  'Startup',
  'StateNotes',
  'InFlight',
  'TokenRefusalWatch',
  'DaemonMetrics',
  'MetricsEndpoint',
];

/** Every `.ts` file under `src/`, as a path relative to it. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** `file: new Part(` for each construction of a part in `files`. */
function constructions(files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const text = readFileSync(join(SRC, file), 'utf8');
    return PARTS.filter((part) => new RegExp(`\\bnew ${part}\\(`).test(text)).map(
      (part) => `${file}: new ${part}(`,
    );
  });
}

describe('the daemon', () => {
  it('keeps its lifecycle in daemon.ts, under 300 lines', () => {
    const lines = readFileSync(join(SRC, 'daemon/daemon.ts'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(300);
  });

  it('has its parts constructed in compose.ts alone', () => {
    const files = sourceFiles();
    expect(files).toContain(COMPOSE);
    expect(constructions(files.filter((file) => file !== COMPOSE))).toEqual([]);
  });

  it('has every part of the list constructed in compose.ts (the list is not stale)', () => {
    expect(constructions([COMPOSE])).toEqual(PARTS.map((part) => `${COMPOSE}: new ${part}(`));
  });
});
