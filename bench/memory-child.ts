/**
 * The child process of benchmark 5: one cold sync of the simulator at `argv[2]` (token in
 * `BENCH_TOKEN`) into a fresh mirror, as `sync` runs it (the store on its own thread), then one
 * JSON line on stdout with the process's peak resident memory (`process.resourceUsage().maxRSS`,
 * KiB, both threads), its resident memory before the sync, and the tasks held.
 */
import { openDatabase } from '../src/store/database.js';
import { benchEngine, collectGarbage, since, tempMirror } from './harness.js';

/** What the child prints. */
export interface MemoryReport {
  idleRssKib: number;
  peakRssKib: number;
  /** The largest V8 heap in use seen after a page, in KiB. */
  peakHeapKib: number;
  /** The largest memory outside the V8 heap (buffers, SQLite) seen after a page, in KiB. */
  peakOutsideHeapKib: number;
  tasks: number;
  ms: number;
}

async function main(baseUrl: string, token: string): Promise<MemoryReport> {
  const mirror = tempMirror();
  try {
    let peakHeapKib = 0;
    let peakOutsideHeapKib = 0;
    const sample = () => {
      const usage = process.memoryUsage();
      peakHeapKib = Math.max(peakHeapKib, Math.round(usage.heapUsed / 1024));
      const outside = usage.rss - usage.heapTotal;
      peakOutsideHeapKib = Math.max(peakOutsideHeapKib, Math.round(outside / 1024));
    };
    mirror.db.close();
    const engine = await benchEngine(baseUrl, token, mirror.file, { limits: false });
    engine.onProgress(sample);
    collectGarbage();
    const idleRssKib = Math.round(process.memoryUsage.rss() / 1024);
    const start = performance.now();
    const report = await engine.mirror.syncAll();
    const ms = since(start);
    await engine.close();
    if (!report.ok) throw new Error(`sync failed: ${report.error ?? 'a project failed'}`);
    const peakRssKib = process.resourceUsage().maxRSS;
    const db = openDatabase(mirror.file);
    const tasks = db.prepare('SELECT count(*) FROM tasks').pluck().get() as number;
    db.close();
    return { idleRssKib, peakRssKib, peakHeapKib, peakOutsideHeapKib, tasks, ms };
  } finally {
    mirror.dispose();
  }
}

const [baseUrl] = process.argv.slice(2);
if (baseUrl === undefined) throw new Error('usage: memory-child BASE_URL (token in BENCH_TOKEN)');
process.stdout.write(`${JSON.stringify(await main(baseUrl, process.env['BENCH_TOKEN'] ?? ''))}\n`);
