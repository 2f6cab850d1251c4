/**
 * The reconcile schedule over random sequences of wall-clock steps (forward and back) and
 * advances of time (seeded, shrinking): no instant of the expression runs twice, every instant
 * that time reached by running runs, and a step forward past an instant runs it within one look
 * at the wall clock.
 */
import fc from 'fast-check';
import pino from 'pino';
import { expect, it } from 'vitest';
import { nextCronTime, Schedules } from '../../src/daemon/schedules.js';
import { DEFAULT_WALL_CHECK_MS } from '../../src/domain/index.js';
import { FakeClock } from '../fixtures/clock.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const CRON = '15 * * * *';

type Op = { kind: 'advance'; ms: number } | { kind: 'step'; ms: number };

const ops = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 3 * HOUR }) }),
    fc.record({
      kind: fc.constant('step' as const),
      ms: fc.integer({ min: -5 * HOUR, max: 5 * HOUR }),
    }),
  ),
  { minLength: 1, maxLength: 12 },
);

/** The instants of `CRON` in (from, to]. */
function instants(from: number, to: number): number[] {
  const found: number[] = [];
  for (
    let next = nextCronTime(CRON, from);
    next !== null && next <= to;
    next = nextCronTime(CRON, next)
  ) {
    found.push(next);
  }
  return found;
}

async function play(sequence: Op[]): Promise<void> {
  const clock = new FakeClock(Date.UTC(2026, 10, 21, 0, 0, 0));
  const runs: number[] = [];
  /** The wall clock's time of each run: a run covers every instant up to it. */
  const ranAt: number[] = [];
  const schedules = new Schedules({
    reconcileCron: CRON,
    clock,
    logger: pino({ level: 'silent' }),
    // The instant being run is the one the schedule still names as next.
    reconcile: async () => {
      runs.push(schedules.nextReconcile()!.getTime());
      ranAt.push(clock.now());
    },
    pruneHistory: () => {},
  });
  schedules.start();
  const crossed: number[] = [];
  for (const op of sequence) {
    if (op.kind === 'step') {
      const before = clock.now();
      const ranBefore = runs.length;
      clock.stepWall(op.ms);
      await clock.advance(DEFAULT_WALL_CHECK_MS);
      const jumped = instants(before, before + op.ms).filter(
        (i) => i > Math.max(0, ...ranAt.slice(0, ranBefore)),
      );
      // A step forward past an instant no run covered yet runs it (once, however many it jumped).
      if (jumped.length > 0) expect(runs.length).toBeGreaterThan(ranBefore);
      crossed.push(...instants(before + op.ms, clock.now()));
    } else {
      const before = clock.now();
      await clock.advance(op.ms);
      crossed.push(...instants(before, clock.now()));
    }
  }
  await schedules.stop();
  // Never twice: each run names an instant after those the run before covered; never early.
  for (let i = 1; i < runs.length; i += 1) expect(runs[i]).toBeGreaterThan(ranAt[i - 1]!);
  runs.forEach((run, i) => expect(run).toBeLessThanOrEqual(ranAt[i]!));
  // Never skipped: an instant time ran through is run, or covered by a run at or after it (one
  // run for several instants a step jumped), or a later instant ran before the clock went back.
  for (const instant of crossed) {
    const covered = runs.some(
      (run, i) => run === instant || (run < instant && instant <= ranAt[i]!),
    );
    expect(covered || runs.some((run) => run > instant)).toBe(true);
  }
}

it('runs each instant of the schedule at most once and skips none, whatever the wall clock does', async () => {
  await fc.assert(fc.asyncProperty(ops, play), {
    seed: Number(process.env['PROJMIRROR_PROPERTY_SEED'] ?? 20_261_128),
    numRuns: 150,
  });
});
