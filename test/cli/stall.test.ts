/**
 * `--stall-ms` bounds silence, not length: a sync paced by the budget for several times the bound
 * runs to its end, and a service that trickles its headers or stops mid-body ends `sync` and
 * `push` within the bound plus a few seconds, with one line on stderr and the mirror intact.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { syncWithCli } from '../fixtures/synced.js';

const TOKEN = 'glt_test_stall_0123456789abcdef';
/** The stall bound of the failing runs, and what they may take beyond it (a loaded machine). */
const STALL_MS = 2000;
const SLACK_MS = 6000;

function count(file: string, sql: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

/** A raw TCP server that answers every request with `answer(socket)`; closed when the test ends. */
async function rawServer(answer: (socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', () => answer(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

/** Writes the status line at once, then one header line a second, never the blank line. */
function trickleHeaders(socket: Socket): void {
  socket.write('HTTP/1.1 200 OK\r\n');
  let line = 0;
  const timer = setInterval(() => socket.write(`X-Trickle-${line++}: ${'.'.repeat(8)}\r\n`), 1000);
  socket.on('close', () => clearInterval(timer));
}

/** Headers promising 1000 bytes, 10 of them, then nothing (the socket left open). */
function stopMidBody(socket: Socket): void {
  socket.write(
    'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n[{"id":"p_',
  );
}

describe('--stall-ms', () => {
  it('lets a sync paced by the budget for several times the bound run to its end (exit 0)', async () => {
    // Two requests per 2 s: every third waits out a 429's Retry-After of 2 s.
    const sim = await startTestSimulator({
      projects: 1,
      tasks: 1200,
      tokens: [TOKEN],
      burst: 2,
      burstWindowMs: 2000,
    });
    const stallMs = 1000;
    const started = Date.now();
    const { db, sync } = await syncWithCli(sim, TOKEN, 'm.sqlite', ['--stall-ms', String(stallMs)]);
    const took = Date.now() - started;
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(count(db, 'SELECT count(*) FROM tasks')).toBe(1200);
    expect(sim.requestLog.count({ status: 429 })).toBeGreaterThanOrEqual(2);
    expect(took).toBeGreaterThan(3 * stallMs);
  }, 60_000);

  it('ends a sync whose service trickles a header line a second: exit 1, one line', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 20, tokens: [TOKEN] });
    const { dir, db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const baseUrl = await rawServer(trickleHeaders);
    const started = Date.now();
    const run = await runCli(
      [
        'sync',
        '--base-url',
        baseUrl,
        '--token-file',
        join(dir, 'token'),
        '--db',
        db,
        '--stall-ms',
        String(STALL_MS),
      ],
      { timeoutMs: 30_000 },
    );
    const took = Date.now() - started;
    expect(run.stderr).toBe(
      'projmirror: sync: stopped: nothing advanced for 2 s (--stall-ms 2000), waiting for the answer to GET listProjects; the mirror keeps its last consistent state\n',
    );
    expect(run.code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(STALL_MS);
    expect(took).toBeLessThan(STALL_MS + SLACK_MS);
    expect(count(db, 'SELECT count(*) FROM tasks')).toBe(20);
  }, 60_000);

  it('ends a push whose service stops mid-body: exit 1, one line, the item still pending', async () => {
    const sim = await startTestSimulator({ projects: 1, tasks: 3, tokens: [TOKEN] });
    const { dir, db, sync } = await syncWithCli(sim, TOKEN);
    expect(sync.code).toBe(0);
    const local = ['--token-file', join(dir, 'token'), '--db', db];
    const queued = await runCli([
      'enqueue',
      'task.create',
      '--project',
      'p_1',
      '--body',
      '{"name":"Pour","startDate":"2026-05-01","endDate":"2026-05-03","status":"NotStarted"}',
      ...local,
    ]);
    expect(queued.code, queued.stderr).toBe(0);
    const baseUrl = await rawServer(stopMidBody);
    const started = Date.now();
    const run = await runCli(
      ['push', '--base-url', baseUrl, ...local, '--stall-ms', String(STALL_MS)],
      { timeoutMs: 30_000 },
    );
    const took = Date.now() - started;
    expect(run.stderr).toBe(
      'projmirror: push: stopped: nothing advanced for 2 s (--stall-ms 2000), waiting for the answer to POST createTask of p_1; the mirror keeps its last consistent state\n',
    );
    expect(run.code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(STALL_MS);
    expect(took).toBeLessThan(STALL_MS + SLACK_MS);
    expect(count(db, `SELECT count(*) FROM outbox WHERE state = 'pending'`)).toBe(1);
  }, 60_000);

  it('refuses a --stall-ms that is not a whole number of ms, naming it (exit 2)', async () => {
    const run = await runCli(['push', '--stall-ms', '1.5', '--base-url', 'http://127.0.0.1:1/v1'], {
      env: { PROJMIRROR_TOKEN: 'glt_test_d_1' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'projmirror: --stall-ms 1.5 must be a whole number of milliseconds, 0 (no stall bound) or more\n',
    );
  });
});
