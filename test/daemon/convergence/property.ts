/**
 * Running the convergence property under vitest: its settings from the environment
 * (`PROJMIRROR_PROPERTY_RUNS`, `_SEED`, `_BUDGET_MS`, `_PATH`), a real-time budget shared by the
 * properties of one test file, and one property run with its log line and its counterexample
 * printed on failure. Each test file says which cases, readings and mirrors it plays.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { SimReadings } from '../../../src/sim/index.js';
import { playCase, type CaseResult, type ReconcileRule } from './driver.js';
import type { MirrorSource } from './mirror.js';
import type { ConvergenceCase } from './steps.js';

/** What a case may still take after the budget ran out, plus vitest's own margin. */
const CASE_MARGIN_MS = 75_000;
/** A test's timeout when no budget bounds the file (runs asked for explicitly). */
const UNBOUNDED_TEST_MS = 24 * 3_600_000;

/** A file's settings: its defaults, unless the environment says otherwise. */
export interface PropertySettings {
  /** Cases in all. */
  runs: number;
  seed: number;
  /** Real time for the file, shrinking included (Infinity when runs were asked for). */
  budgetMs: number;
  /** A counterexample's path, replayed with the seed as given (no per-property offset). */
  replayPath: string | undefined;
  /** Each test's timeout: the budget and what the last case may take. */
  testTimeoutMs: number;
}

/** Reads the settings of a file whose defaults are `defaults`. */
export function propertySettings(defaults: {
  runs: number;
  seed: number;
  budgetMs: number;
}): PropertySettings {
  const runs = fromEnv('PROJMIRROR_PROPERTY_RUNS', defaults.runs);
  const seed = fromEnv('PROJMIRROR_PROPERTY_SEED', defaults.seed);
  const budgetMs = fromEnv(
    'PROJMIRROR_PROPERTY_BUDGET_MS',
    process.env['PROJMIRROR_PROPERTY_RUNS'] === undefined ? defaults.budgetMs : Infinity,
  );
  const testTimeoutMs = Number.isFinite(budgetMs) ? budgetMs + CASE_MARGIN_MS : UNBOUNDED_TEST_MS;
  return {
    runs,
    seed,
    budgetMs,
    replayPath: process.env['PROJMIRROR_PROPERTY_PATH'],
    testTimeoutMs,
  };
}

/** The real time of one file, shared by its properties: each takes an even share of what is left. */
export class PropertyBudget {
  private readonly deadline: number;

  constructor(
    budgetMs: number,
    private propertiesLeft: number,
  ) {
    this.deadline = Date.now() + budgetMs;
  }

  /** The deadline of the property starting now. */
  nextShare(): number {
    const now = Date.now();
    const share = now + (this.deadline - now) / this.propertiesLeft;
    this.propertiesLeft -= 1;
    return share;
  }
}

/** A property over cases of `arbitrary`, failing on what `verdict` finds in a case's result. */
export interface Check {
  name: string;
  arbitrary: fc.Arbitrary<ConvergenceCase>;
  readings: Partial<SimReadings>;
  runs: number;
  seed: number;
  verdict: (result: CaseResult) => string[];
  /** Where each case's mirror lives (a SQLite file unless given). */
  mirrors?: MirrorSource;
  /** When the one reconcile is allowed (`unannounced` unless given). */
  rule?: ReconcileRule;
}

/** What one property played. */
export interface Played {
  played: number;
  skipped: number;
  reconciled: number;
  outages: number;
  /** Cases in which the service answered a task page past the first (`CaseResult.laterPages`). */
  severalPages: number;
}

/** Runs one property within its share of the file's time budget; logs and returns what it played. */
export async function check(
  spec: Check,
  budget: PropertyBudget,
  settings: PropertySettings,
): Promise<Played> {
  const started = Date.now();
  const deadline = budget.nextShare();
  const counts: Played = { played: 0, skipped: 0, reconciled: 0, outages: 0, severalPages: 0 };
  const property = fc.asyncProperty(spec.arbitrary, async (testCase) => {
    if (Date.now() > deadline) {
      counts.skipped += 1; // past the budget (often while shrinking): passes unplayed
      return;
    }
    counts.played += 1;
    const result = await playCase(testCase, spec.readings, spec.mirrors, spec.rule);
    if (result.reconciled) counts.reconciled += 1;
    counts.outages += result.outages;
    if (result.laterPages > 0) counts.severalPages += 1;
    const found = spec.verdict(result);
    if (found.length > 0) throw new Error(describeFailure(found, result.trace));
  });
  try {
    const { replayPath, seed } = settings;
    const replay = replayPath === undefined ? {} : { seed, path: replayPath };
    await fc.assert(property, { seed: spec.seed, numRuns: spec.runs, ...replay });
  } finally {
    const seconds = ((Date.now() - started) / 1_000).toFixed(1);
    const cut = counts.skipped > 0 ? `, ${counts.skipped} skipped (time budget)` : '';
    const played =
      `${counts.played} cases played (${counts.reconciled} needed the reconcile, ` +
      `${counts.outages} held locks or stalls, ${counts.severalPages} read a project over ` +
      `several pages)`;
    console.log(`${spec.name}: ${played} in ${seconds} s${cut}`);
  }
  expect(counts.played).toBeGreaterThan(0);
  return counts;
}

function describeFailure(found: string[], trace: string[]): string {
  return [
    'found:',
    ...found.map((problem) => `  - ${problem}`),
    'what happened:',
    ...trace.map((line) => `  ${line}`),
  ].join('\n');
}

function fromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer, not ${JSON.stringify(text)}`);
  }
  return value;
}
