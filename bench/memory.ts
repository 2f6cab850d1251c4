/**
 * Benchmark 5: peak resident memory of a cold sync of one project of 10,000, 100,000 and 1,000,000
 * tasks. Each size runs in its own child process (`memory-child`) against a simulator in yet
 * another process, so neither the simulator's model nor an earlier size counts.
 */
import { spawn } from 'node:child_process';
import { duration, mebibytes, num, type Figure } from './figure.js';
import { siblingModule, spawnSimulator } from './harness.js';
import type { MemoryReport } from './memory-child.js';

/** Project sizes measured. */
export const MEMORY_SIZES = [10_000, 100_000, 1_000_000];
/** The largest size's peak over the middle one's must stay at or below this. */
export const MEMORY_TARGET_RATIO = 1.3;

/** Runs benchmark 5; returns its figure. */
export async function memoryBenchmark(sizes = MEMORY_SIZES): Promise<Figure[]> {
  const reports: MemoryReport[] = [];
  for (const tasks of sizes) reports.push(await measure(tasks));
  const [small, middle, large] = [reports[0]!, reports[1] ?? reports[0]!, reports.at(-1)!];
  const ratio = large.peakRssKib / middle.peakRssKib;
  const complete = reports.every((report, index) => report.tasks === sizes[index]);
  const met = complete && ratio <= MEMORY_TARGET_RATIO;
  const peaks = reports
    .map((r) => `${num(r.tasks)}: ${mebibytes(r.peakRssKib * 1024)} (${duration(r.ms)})`)
    .join(', ');
  const growth = (pick: (report: MemoryReport) => number) =>
    `${mebibytes(pick(middle) * 1024)} -> ${mebibytes(pick(large) * 1024)}`;
  const where =
    `from ${num(middle.tasks)} to ${num(large.tasks)} tasks the V8 heap peak went ` +
    `${growth((r) => r.peakHeapKib)} and memory outside it ${growth((r) => r.peakOutsideHeapKib)}`;
  return [
    {
      id: '5',
      title: 'Peak RSS of a cold sync by project size',
      value: peaks,
      baseline:
        `idle process ${mebibytes(small.idleRssKib * 1024)}; ` +
        `${num(large.tasks)} / ${num(middle.tasks)} ratio ${num(ratio, 2)}`,
      target: `${num(large.tasks)} figure <= ${MEMORY_TARGET_RATIO} x the ${num(middle.tasks)} one`,
      met,
      note: complete ? where : 'a sync did not complete',
    },
  ];
}

/** One size: a simulator process, then a sync child whose report is returned. */
async function measure(tasks: number): Promise<MemoryReport> {
  const sim = await spawnSimulator(['--no-limits', '--projects', '1', '--tasks', String(tasks)]);
  try {
    return await runChild(sim.baseUrl, sim.token);
  } finally {
    await sim.close();
  }
}

function runChild(baseUrl: string, token: string): Promise<MemoryReport> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, siblingModule('memory-child'), baseUrl],
    { env: { ...process.env, BENCH_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`memory child exited with code ${String(code)}`));
      else resolve(JSON.parse(output.trim()) as MemoryReport);
    });
  });
}
