/**
 * Benchmark 12: a simulated year unattended. The year itself (memory, the file against its live
 * data, the log's peak) is driven through the daemon's daily units of work at compressed time
 * (`soak-year`); the log lines a day are the real daemon's over simulated days of the same churn
 * (`soak-logs`). Figures that miss are printed as missed; nothing fails.
 */
import { duration, mebibytes, num, type Figure } from './figure.js';
import { soakLogLines } from './soak-logs.js';
import { soakYear, SOAK_DAYS } from './soak-year.js';
import {
  SOAK_CREATES_PER_DAY,
  SOAK_DELETES_PER_DAY,
  SOAK_EDITS_PER_DAY,
  SOAK_PROJECTS,
  SOAK_TASKS_PER_PROJECT,
} from './soak-workload.js';

/** RSS at day 365 over day 30's must stay at or below this (issue 38). */
export const SOAK_RSS_RATIO_TARGET = 1.1;
/** The file over its live data must stay at or below this. */
export const SOAK_FILE_RATIO_TARGET = 1.5;
/** Lines a day at `info` when nothing is wrong. */
export const SOAK_LOG_LINES_TARGET = 100;
/** Days the real daemon runs for the log lines: the start-up's, then a whole quiet one. */
const LOG_DAYS = 2;

/** Runs benchmark 12; returns its figures. */
export async function soakBenchmarks(days = SOAK_DAYS): Promise<Figure[]> {
  const year = await soakYear(days);
  const logs = await soakLogLines(LOG_DAYS);
  const workload =
    `${SOAK_PROJECTS} projects x ${num(SOAK_TASKS_PER_PROJECT)} tasks; ` +
    `${SOAK_CREATES_PER_DAY} creates, ${SOAK_EDITS_PER_DAY} edits, ${SOAK_DELETES_PER_DAY} deletes a day`;
  const rss = (day: number) => year.peakRss.get(day) ?? Number.NaN;
  const last = year.days;
  const rssRatio = rss(last) / rss(30);
  const fileRatio = year.fileBytes / year.liveBytes;
  const quiet = logs.lines.get(LOG_DAYS) ?? new Map<string, number>();
  const quietLines = [...quiet.values()].reduce((a, b) => a + b, 0);
  const startLines = [...(logs.lines.get(1)?.values() ?? [])].reduce((a, b) => a + b, 0);
  const messages = [...quiet].map(([msg, count]) => `${count} "${msg}"`).join(', ');
  return [
    {
      id: '12',
      title: `Peak RSS over a simulated year (modelled: the daemon's daily units of work; ${workload})`,
      value:
        `day 1 ${mebibytes(rss(1))}, day 30 ${mebibytes(rss(30))}, day ${last} ${mebibytes(rss(last))} ` +
        `(${num(year.changes)} changes, ${duration(year.realMs)})`,
      baseline: `day 30: ratio ${num(rssRatio, 2)}`,
      target: `day ${last} <= ${SOAK_RSS_RATIO_TARGET} x day 30`,
      met: rssRatio <= SOAK_RSS_RATIO_TARGET,
    },
    {
      id: '12b',
      title: `The mirror file after the year, against its live data (${workload}; retention at its defaults)`,
      value:
        `file ${mebibytes(year.fileBytes)}, ${num(year.freePages)} free pages of ` +
        `${num(year.pageBytes / 1024)} KiB; WAL peak ${mebibytes(year.walPeakBytes)} ` +
        `(${num(year.liveTasks)} tasks, ${num(year.historyRows)} history rows, the oldest of ` +
        `${year.oldestHistory?.slice(0, 10) ?? 'none'})`,
      baseline: `live data (VACUUM INTO) ${mebibytes(year.liveBytes)}: ratio ${num(fileRatio, 2)}`,
      target: `file <= ${SOAK_FILE_RATIO_TARGET} x live data`,
      met: fileRatio <= SOAK_FILE_RATIO_TARGET,
    },
    {
      id: '12c',
      title: `Log lines a day at info, nothing wrong (real daemon, simulator at the spec's limits; ${workload})`,
      value:
        `${num(quietLines)} lines on a whole day (${messages || 'none'}); ` +
        `${num(logs.requests.get(LOG_DAYS) ?? 0)} requests that day (${duration(logs.realMs)} for ${LOG_DAYS} days)`,
      baseline: `start-up day ${num(startLines)} lines`,
      target: `<= ${SOAK_LOG_LINES_TARGET} lines a day`,
      met: quietLines <= SOAK_LOG_LINES_TARGET,
    },
  ];
}
