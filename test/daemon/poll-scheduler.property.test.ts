/**
 * The poll schedule's projects the plan does not list (a first pass that failed before the mirror
 * held the project, a due time an event the store could not take left), over random sequences
 * (seeded, shrinking) of failures, due times, projects becoming this daemon's or not (its leases),
 * passes that fail, pass or join a pass recorded already, listings that forget, and time
 * passing, on a fake clock:
 * (1) a project is never polled while it is not this daemon's; (2) never twice within the
 * shortest retry; (3) never again after a listing forgot it, until a failure or due time is
 * noted anew; (4) once every project is this daemon's and passes, every failure is retried and
 * cleared, and every due time not forgotten is kept, within the longest backoff.
 */
import fc from 'fast-check';
import pino from 'pino';
import { expect, it } from 'vitest';
import {
  FAILED_PASS_BACKOFF_MAX_MS,
  FAILED_PASS_MIN_RETRY_MS,
  PollScheduler,
} from '../../src/daemon/poll-scheduler.js';
import { FakeClock, flushMicrotasks } from '../fixtures/clock.js';
import { fixedPlan } from '../fixtures/plan.js';

const HOUR = 3_600_000;
/** Projects the plan does not list; the plan's own are 'a' and 'b'. */
const UNLISTED = ['x', 'y', 'z'] as const;
type Unlisted = (typeof UNLISTED)[number];
type Answer = 'passes' | 'fails' | 'joins';

type Op =
  | { op: 'fail'; id: Unlisted }
  | { op: 'due'; id: Unlisted; inMs: number }
  | { op: 'mine'; id: Unlisted; mine: boolean }
  /** How its passes end: passing, failing, or joined to a pass whose outcome is recorded. */
  | { op: 'answer'; id: Unlisted; answer: Answer }
  | { op: 'forget'; keep: Unlisted[] }
  | { op: 'advance'; ms: number };

const id = fc.constantFrom(...UNLISTED);
const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant('fail' as const), id }),
    fc.record({
      op: fc.constant('due' as const),
      id,
      inMs: fc.oneof(fc.constant(0), fc.nat(5 * 60_000)),
    }),
    fc.record({ op: fc.constant('mine' as const), id, mine: fc.boolean() }),
    fc.record({
      op: fc.constant('answer' as const),
      id,
      answer: fc.constantFrom<Answer>('passes', 'fails', 'joins'),
    }),
    fc.record({ op: fc.constant('forget' as const), keep: fc.subarray([...UNLISTED]) }),
    {
      weight: 3,
      arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.nat(90_000) }),
    },
  ),
  { maxLength: 30 },
);

async function play(steps: Op[]): Promise<void> {
  const clock = new FakeClock();
  const mine = new Set<string>(UNLISTED);
  const answers = new Map<string, Answer>();
  const polls: Array<{ id: string; at: number }> = [];
  /** Polls of a project that was not this daemon's. */
  const notMine: string[] = [];
  const scheduler = new PollScheduler({
    clock,
    logger: pino({ level: 'silent' }),
    plan: fixedPlan(clock, HOUR),
    poll: async (projectId) => {
      // (1), checked after each step: the scheduler logs what a poll throws and goes on.
      if (UNLISTED.includes(projectId as Unlisted) && !mine.has(projectId)) {
        notMine.push(`${projectId} at ${clock.now()}`);
      }
      polls.push({ id: projectId, at: clock.now() });
      const answer = answers.get(projectId) ?? 'passes';
      return answer === 'joins' ? undefined : answer === 'passes';
    },
    lastPassAt: () => clock.now(),
    eligible: (projectId) => mine.has(projectId),
    random: () => 0.5,
  });
  const controller = new AbortController();
  const done = scheduler.run(controller.signal);
  /** Projects a listing forgot, and nothing noted since. */
  const forgotten = new Set<string>();
  /**
   * Due times noted and not forgotten: the project must be polled after each was noted (at its
   * time, or sooner for another reason: a due time says "this soon at the latest").
   */
  const dues: Array<{ id: string; at: number }> = [];
  const settle = async () => {
    scheduler.replan();
    await flushMicrotasks();
  };
  try {
    await settle();
    for (const step of steps) {
      const pollsBefore = polls.length;
      if (step.op === 'fail') {
        scheduler.recordResult(step.id, false);
        forgotten.delete(step.id);
      } else if (step.op === 'due') {
        scheduler.dueAt(step.id, clock.now() + step.inMs);
        forgotten.delete(step.id);
        dues.push({ id: step.id, at: clock.now() });
      } else if (step.op === 'mine') {
        if (step.mine) mine.add(step.id);
        else mine.delete(step.id);
      } else if (step.op === 'answer') {
        answers.set(step.id, step.answer);
      } else if (step.op === 'forget') {
        scheduler.forget(
          (projectId) => (step.keep as string[]).includes(projectId),
          scheduler.mark(),
        );
        for (const gone of UNLISTED.filter((one) => !step.keep.includes(one))) {
          forgotten.add(gone);
          for (let i = dues.length - 1; i >= 0; i--) if (dues[i]!.id === gone) dues.splice(i, 1);
        }
      } else {
        await clock.advance(step.ms);
      }
      await settle();
      expect(notMine).toEqual([]);
      // (3): nothing forgotten is polled.
      for (const poll of polls.slice(pollsBefore)) expect(forgotten.has(poll.id)).toBe(false);
    }
    // (4): every project this daemon's and passing, past the longest backoff.
    for (const one of UNLISTED) {
      mine.add(one);
      answers.set(one, 'passes');
    }
    await settle();
    await clock.advance(FAILED_PASS_BACKOFF_MAX_MS + 5 * 60_000);
    for (const one of UNLISTED) expect(scheduler.failures().has(one)).toBe(false);
    for (const due of dues) {
      const kept = polls.some((poll) => poll.id === due.id && poll.at >= due.at);
      expect(kept, `${due.id}, made due at ${due.at}, not polled since`).toBe(true);
    }
  } finally {
    controller.abort();
    await done;
  }
  // (2): never twice within the shortest retry.
  for (const one of UNLISTED) {
    const times = polls.filter((poll) => poll.id === one).map((poll) => poll.at);
    for (let i = 1; i < times.length; i++) {
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(FAILED_PASS_MIN_RETRY_MS);
    }
  }
}

it('polls a project the plan does not list only when it may, not too often, and never forgotten', async () => {
  await fc.assert(fc.asyncProperty(ops, play), {
    seed: Number(process.env['PROJMIRROR_PROPERTY_SEED'] ?? 20_261_125),
    numRuns: Number(process.env['PROJMIRROR_PROPERTY_RUNS'] ?? 500),
  });
});
