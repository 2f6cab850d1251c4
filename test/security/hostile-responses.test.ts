/**
 * Probes of a hostile service over HTTP (issue 12, items 6 to 11): each answer is refused with a
 * one-line error naming the route and page, and the mirror of an earlier pass stays intact.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_FIELD_CHARS, MAX_RECORD_CHARS } from '../../src/domain/index.js';
import type { HttpRemoteOptions } from '../../src/remote/index.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { snapshot } from '../mirror/helpers.js';
import {
  answerJson,
  engineFor,
  hostileProxy,
  integrity,
  isTasksPage,
  type Tamper,
} from './hostile-proxy.js';

const TOKEN = 'glt_test_security_probe_0123456789';
/** Small pages keep the bodies of the probes small: the bound is 10 × 64 KiB + 4 MiB. */
const PAGE_SIZE = 10;

/** A mirror synced once through the proxy, and a way to sync it again under a tamper. */
async function mirrored() {
  const sim = await startTestSimulator({ projects: 1, tasks: [3], tokens: [TOKEN], limits: false });
  const proxy = await hostileProxy(sim);
  const { db, file } = tempDatabase();
  const first = await engineFor(proxy.baseUrl, TOKEN, db, {}, PAGE_SIZE).syncAll();
  expect(first.ok).toBe(true);
  const projectId = first.projects[0]?.projectId as string;
  const before = snapshot(db);
  expect(before['tasks']).toHaveLength(3);

  /** Syncs again under `tamper`; returns the error, having checked the mirror is as before. */
  async function refusedUnder(tamper: Tamper, options: Partial<HttpRemoteOptions> = {}) {
    proxy.tamper = tamper;
    const result = await engineFor(proxy.baseUrl, TOKEN, db, options, PAGE_SIZE).syncProject(
      projectId,
    );
    proxy.tamper = undefined;
    expect(result.ok).toBe(false);
    expect(integrity(db)).toBe('ok');
    expect(snapshot(db)).toEqual(before);
    return result.error ?? '';
  }
  return { db, file, projectId, refusedUnder };
}

/** A tamper answering every tasks page with `body`. */
function pageOf(body: string, totalCount = 1): Tamper {
  return (req, res) => {
    if (!isTasksPage(req)) return false;
    answerJson(res, body, totalCount);
    return true;
  };
}

/** Writes `chunk` until `totalBytes` are sent or the client goes; resolves with the bytes sent. */
async function flood(res: ServerResponse, chunk: string, totalBytes: number): Promise<number> {
  let sent = 0;
  while (sent < totalBytes && !res.destroyed) {
    sent += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end();
  return sent;
}

describe('a hostile service over HTTP', () => {
  it('a body trickled a byte at a time meets the request deadline, is retried, then fails', async () => {
    const { refusedUnder } = await mirrored();
    let attempts = 0;
    const started = Date.now();
    const error = await refusedUnder(
      (req, res) => {
        if (!isTasksPage(req)) return false;
        attempts += 1;
        res.writeHead(200, { 'content-type': 'application/json', 'x-total-count': '3' });
        const drip = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(drip));
        return true;
      },
      { requestDeadlineMs: 300 },
    );
    expect(error).toMatch(
      /^GET listTasks of p_\d+ page 1: no whole answer within the request deadline of 300 ms$/,
    );
    expect(attempts).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a page body past pageSize × 64 KiB + 4 MiB is refused while it is read', async () => {
    const { refusedUnder } = await mirrored();
    const bound = PAGE_SIZE * 64 * 1024 + 4 * 1024 * 1024;
    let sent: Promise<number> | undefined;
    const error = await refusedUnder((req, res) => {
      if (!isTasksPage(req)) return false;
      res.writeHead(200, { 'content-type': 'application/json', 'x-total-count': '3' });
      res.write('[');
      sent = flood(res, '{"id":"t"},'.repeat(6_000), 64 * 1024 * 1024);
      return true;
    });
    expect(error).toBe(
      `GET listTasks of p_1 page 1: malformed response: body over ${bound} bytes (the bound)`,
    );
    // The client hung up well before the 64 MiB the service meant to send.
    expect(await sent).toBeLessThan(32 * 1024 * 1024);
  });

  it('a body declaring more than the bound is refused before any of it is read', async () => {
    const { refusedUnder } = await mirrored();
    const error = await refusedUnder((req, res) => {
      if (!isTasksPage(req)) return false;
      res.writeHead(200, { 'content-length': String(63 * 1024 * 1024), 'x-total-count': '3' });
      res.write('[');
      return true;
    });
    expect(error).toMatch(/^GET listTasks of p_1 page 1: malformed response: body over \d+ bytes/);
  });

  it('tiny rows past pageSize within the byte bound are refused before they are parsed', async () => {
    const { refusedUnder } = await mirrored();
    const rows = Array.from({ length: 150_000 }, (_, i) => `{"id":"t${i}"}`);
    const body = `[${rows.join(',')}]`;
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const error = await refusedUnder(pageOf(body, rows.length));
    expect(error).toBe(
      `GET listTasks of p_1 page 1: malformed response: body holds more than ${PAGE_SIZE} items`,
    );
  });

  it('a field nested 100,000 levels deep is a malformed response naming route and page', async () => {
    const { refusedUnder } = await mirrored();
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const error = await refusedUnder(pageOf(`[{"id":"t_1","name":"x","custom":${deep}}]`));
    expect(error).toBe(
      'GET listTasks of p_1 page 1: malformed response: row 1: task t_1 nests deeper than 32 levels in custom',
    );
    // Deeper still, the body is refused by its scan, before JSON.parse builds anything.
    const deeper = '['.repeat(600_000) + ']'.repeat(600_000);
    const scanned = await refusedUnder(pageOf(`[{"id":"t_1","custom":${deeper}}]`));
    expect(scanned).toBe(
      'GET listTasks of p_1 page 1: malformed response: body nests deeper than 33 levels',
    );
  });

  it('a string over 64 KiB or a record over 1 MiB is refused, never stored', async () => {
    const { refusedUnder, file } = await mirrored();
    const name = 'N'.repeat(MAX_FIELD_CHARS + 1);
    const error = await refusedUnder(pageOf(JSON.stringify([{ id: 't_1', name }])));
    expect(error).toBe(
      `GET listTasks of p_1 page 1: malformed response: row 1: task t_1 has a string of ${name.length} characters in name (the bound is ${MAX_FIELD_CHARS})`,
    );
    const wide: Record<string, string> = { id: 't_1' };
    for (let i = 0; i < 17; i += 1) wide[`f${i}`] = 'w'.repeat(MAX_FIELD_CHARS - 10);
    const large = await refusedUnder(pageOf(JSON.stringify([wide])));
    expect(large).toBe(
      `GET listTasks of p_1 page 1: malformed response: row 1: task t_1 is over ${MAX_RECORD_CHARS} characters (the bound)`,
    );
    expect(readFileSync(file).includes('NNNNNNNNNNNNNNNNNNNN')).toBe(false);
  });

  it('an answer echoing the token is refused: no error line, no mirror file holds it', async () => {
    const { refusedUnder, file } = await mirrored();
    const inId = await refusedUnder(pageOf(JSON.stringify([{ id: `id-Bearer ${TOKEN}` }])));
    const inHeader = await refusedUnder((req, res) => {
      if (!isTasksPage(req)) return false;
      res.writeHead(200, { 'x-total-count': '1', etag: `"${TOKEN}"` });
      res.end('[]');
      return true;
    });
    for (const error of [inId, inHeader]) {
      expect(error).toBe(
        'GET listTasks of p_1 page 1: malformed response: the answer holds the token, so it is refused (the token must reach no log nor the mirror)',
      );
    }
    const dir = dirname(file);
    for (const name of readdirSync(dir)) {
      expect(readFileSync(join(dir, name)).includes(TOKEN), name).toBe(false);
    }
  });

  it('ids with control characters and 100 KB values are escaped and cut in errors', async () => {
    const { refusedUnder } = await mirrored();
    const forged = 't_1\u001b[2J\nprojmirror: all good\r';
    const error = await refusedUnder(pageOf(JSON.stringify([{ id: forged, progress: 'x' }])));
    expect(error).toBe(
      'GET listTasks of p_1 page 1: malformed response: row 1: task t_1\\x1b[2J\\nprojmirror: all good\\r has progress of type a string',
    );
    const long = await refusedUnder(
      pageOf(JSON.stringify([{ id: 'L'.repeat(100_000), progress: 'x' }])),
    );
    expect(long).toBe(
      `GET listTasks of p_1 page 1: malformed response: row 1: task ${'L'.repeat(199)}… has progress of type a string`,
    );
  });
});
