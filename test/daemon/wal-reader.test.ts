/**
 * A reader that never lets go (issue 38): a real `projmirror run` against the real simulator,
 * and a second process holding a read transaction on its SQLite file (`BEGIN; SELECT`, as a BI
 * tool or a `sqlite3` prompt does) while events are written. The bound is scaled down from 10
 * minutes to 3 s (`--checkpoint-blocked-minutes 0.05`; checkpoints then run every 750 ms).
 * While the reader holds, the log grows, the daemon warns once and /healthz is a degraded 200
 * naming the block; once it lets go, the log is started over empty within a few checkpoints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { startCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { probe } from './store-outage.js';

const TOKEN = 'glt_test_wal_reader_0123456789ab';
const HOLD_MS = 8_000;

/** A second process inside a read transaction on `file` until it reads a line on stdin. */
async function holdReader(file: string): Promise<ChildProcess> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1], { readonly: true });
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM tasks').get();
    console.log('held');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script, file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`the reader exited with ${String(code)}`)));
  });
  return child;
}

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

async function metric(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a reader holding a snapshot of the mirror', () => {
  it('is warned of once and shown by /healthz; the log comes back down after it lets go', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: [200], tokens: [TOKEN] });
    const dir = tempDir();
    const file = join(dir, 'm.sqlite');
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    const daemon = startCli(
      [
        ...['run', '--base-url', sim.baseUrl, '--token-file', join(dir, 'token')],
        ...['--db', file, '--realtime-url', sim.realtimeUrl, '--metrics-port', '0'],
        ...['--checkpoint-blocked-minutes', '0.05'],
      ],
      { timeoutMs: 120_000 },
    );
    try {
      const port = (JSON.parse(await daemon.waitForLine(/metrics listening/)) as { port: number })
        .port;
      await daemon.waitForLine(/daemon started/);
      await daemon.waitForLine(/realtime: connected/);
      expect((await probe(port)).body).toMatchObject({ ok: true, wal: 'ok' });

      const reader = await holdReader(file);
      const heldAt = Date.now();
      const start = walBytes(file);
      let n = 0;
      while (Date.now() - heldAt < HOLD_MS) {
        for (let i = 0; i < 5; i++) {
          sim.service.createTask('p_1', { name: `created while read ${(n += 1)}` });
        }
        await pause(100);
      }
      const held = walBytes(file);
      expect(held - start).toBeGreaterThan(64 * 1024);
      await daemon.waitForLine(/checkpoint blocked for \d+ s: a reader holds a read transaction/);
      const during = await probe(port);
      expect(during.status).toBe(200);
      expect(during.body).toMatchObject({
        ok: true,
        wal: expect.stringMatching(/^checkpoint blocked for \d+ s$/),
      });
      expect(
        await metric(port, 'projmirror_wal_last_complete_checkpoint_age_seconds'),
      ).toBeGreaterThan(3);
      expect(await metric(port, 'projmirror_wal_bytes')).toBeGreaterThan(64 * 1024);
      // Warned once, however long it lasts.
      expect(daemon.stdout().match(/checkpoint blocked for/g)).toHaveLength(1);

      reader.stdin!.write('release\n');
      await new Promise((resolve) => reader.once('exit', resolve));
      const releasedAt = Date.now();
      while (walBytes(file) > 0 && Date.now() - releasedAt < 15_000) await pause(100);
      // Started over empty within a few checkpoints of 750 ms (the scaled "within a minute").
      expect(walBytes(file)).toBe(0);
      expect(Date.now() - releasedAt).toBeLessThan(5_000);
      await daemon.waitForLine(/checkpoints complete again/);
      expect((await probe(port)).body).toMatchObject({ ok: true, wal: 'ok' });
      expect(
        await metric(port, 'projmirror_wal_last_complete_checkpoint_age_seconds'),
      ).toBeLessThan(2);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.ended;
      await sim.close();
    }
  }, 90_000);
});
