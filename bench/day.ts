/**
 * Benchmark 6: one simulated day of 10 projects of 2,000 tasks and 500 changes, under the spec's
 * quota of 5,000 requests a day: the daemon with realtime, the daemon polling only, and a naive
 * poller re-reading everything every 5 minutes (the baseline). Requests per day and worst
 * staleness (simulated time from a change on the service to the mirror showing it) for each.
 */
import { DEFAULT_DAILY_QUOTA } from '../src/sim/index.js';
import { daemonDay, type DayResult } from './day-daemon.js';
import { naiveDay, type NaiveResult } from './day-naive.js';
import { DAY_CHANGES, DAY_PROJECTS, DAY_TASKS_PER_PROJECT } from './day-workload.js';
import { duration, num, type Figure } from './figure.js';

/** Runs benchmark 6 (three approaches over the same day); returns its figures. */
export async function dayBenchmarks(): Promise<Figure[]> {
  const naive = await naiveDay();
  const polling = await daemonDay(false);
  const realtime = await daemonDay(true);
  const workload = `${DAY_PROJECTS} x ${num(DAY_TASKS_PER_PROJECT)} tasks, ${DAY_CHANGES} changes`;
  return [
    daemonFigure('6', `One day, daemon with realtime (${workload})`, realtime, naive),
    daemonFigure('6b', `One day, daemon polling only (${workload})`, polling, naive),
    naiveFigure(naive),
  ];
}

function summary(result: DayResult): string {
  const refused = result.rateLimited > 0 ? ` (${num(result.rateLimited)} refused with 429)` : '';
  const unseen = result.unseen > 0 ? `, ${result.unseen} changes never seen that day` : '';
  const worst =
    result.worstStalenessMs === 0
      ? '0 (every change was in the mirror before simulated time moved on)'
      : duration(result.worstStalenessMs);
  return `${num(result.requests)} requests/day${refused}; worst staleness ${worst}${unseen}`;
}

function naiveDemand(naive: NaiveResult): number {
  return naive.requestsPerRound * naive.rounds;
}

function daemonFigure(id: string, title: string, result: DayResult, naive: NaiveResult): Figure {
  const met = result.requests <= DEFAULT_DAILY_QUOTA && result.rateLimited === 0;
  const drops = result.disconnects > 0 ? `; ${result.disconnects} realtime drop(s)` : '';
  return {
    id,
    title,
    value: `${summary(result)}${drops}`,
    baseline:
      `naive poller needs ${num(naiveDemand(naive))} requests/day: ` +
      `ratio ${num(result.requests / naiveDemand(naive), 2)}`,
    target: `within the ${num(DEFAULT_DAILY_QUOTA)}/day quota, no 429`,
    met,
    ...(met ? {} : { note: `${num(result.requests)} requests, ${result.rateLimited} refused` }),
  };
}

function naiveFigure(naive: NaiveResult): Figure {
  const demand = naiveDemand(naive);
  const cutOff =
    naive.firstRefusalAt === undefined
      ? 'never refused'
      : `refused from ${new Date(naive.firstRefusalAt).toISOString().slice(11, 16)} UTC on`;
  return {
    id: '6c',
    title: 'One day, naive poller re-reading everything every 5 min (baseline)',
    value:
      `${summary(naive)}; needs ${naive.requestsPerRound} requests a round x ` +
      `${naive.rounds} rounds = ${num(demand)}/day, ${num(demand / DEFAULT_DAILY_QUOTA, 1)} x the quota`,
    baseline: `quota ${num(DEFAULT_DAILY_QUOTA)}/day: ${cutOff}`,
    target: 'none (the baseline)',
    met: true,
    note: 'it blows through the quota; changes after that wait for the next quota day',
  };
}
