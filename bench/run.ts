/**
 * `npm run bench`: runs the benchmarks of issues 6, 14, 15, 23, 35 and 38 one after the other,
 * prints each figure with its same-run baseline and target as it comes, then the machine and one
 * Markdown table for the README. `--only 1,4` runs some of them (by number).
 */
import { availableParallelism, cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { allocationBenchmarks } from './allocation.js';
import { coldSyncBenchmarks } from './cold-sync.js';
import { dayBenchmarks } from './day.js';
import { figureLines, markdownTable, mebibytes, type Figure } from './figure.js';
import { freshnessBenchmarks } from './freshness.js';
import { loopDelayBenchmarks } from './loop-delay.js';
import { memoryBenchmark } from './memory.js';
import { postgresBenchmarks } from './postgres.js';
import { rateLimitedBenchmarks } from './rate-limited.js';
import { severalTokensBenchmark } from './several-tokens.js';
import { soakBenchmarks } from './soak.js';
import { walPerEventBenchmarks } from './wal-per-event.js';

/** The benchmarks by number, in the order they run (the long rate-limited one last). */
const BENCHMARKS: { ids: string[]; run: () => Promise<Figure[]> }[] = [
  { ids: ['1', '2'], run: () => coldSyncBenchmarks() },
  { ids: ['4'], run: () => freshnessBenchmarks() },
  { ids: ['5'], run: () => memoryBenchmark() },
  { ids: ['6'], run: () => dayBenchmarks() },
  { ids: ['3'], run: () => rateLimitedBenchmarks() },
  { ids: ['7'], run: () => severalTokensBenchmark() },
  { ids: ['8'], run: () => postgresBenchmarks() },
  { ids: ['9'], run: () => loopDelayBenchmarks() },
  { ids: ['10'], run: () => allocationBenchmarks() },
  { ids: ['11'], run: () => walPerEventBenchmarks() },
  { ids: ['12'], run: () => soakBenchmarks() },
];

/** The machine, as the README states it beside the figures. */
function machine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const day = new Date().toISOString().slice(0, 10);
  return (
    `${day}, ${availableParallelism()} CPUs (${model}), ${mebibytes(totalmem())} memory, ` +
    `Node ${process.version}, ${process.platform}`
  );
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { only: { type: 'string' } } });
  const only = values.only?.split(',').map((id) => id.trim());
  const figures: Figure[] = [];
  console.log(`projmirror benchmarks: ${machine()}\n`);
  for (const benchmark of BENCHMARKS) {
    if (only && !benchmark.ids.some((id) => only.includes(id))) continue;
    const start = performance.now();
    for (const figure of await benchmark.run()) {
      figures.push(figure);
      console.log(figureLines(figure));
    }
    console.log(`    (${((performance.now() - start) / 1_000).toFixed(0)} s)\n`);
  }
  figures.sort((a, b) => a.id.localeCompare(b.id));
  console.log(`Machine: ${machine()}\n`);
  console.log(markdownTable(figures));
  const missed = figures.filter((figure) => !figure.met).map((figure) => figure.id);
  console.log(missed.length > 0 ? `\nTargets missed: ${missed.join(', ')}` : '\nEvery target met.');
  return 0;
}

process.exitCode = await main();
