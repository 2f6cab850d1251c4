import { closeSync, fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  plainLine,
  stdoutIsJournal,
  type LoggerOptions,
} from '../../src/daemon/logger.js';
import { tempDir } from '../fixtures/db.js';

function capture(options: Partial<LoggerOptions> = {}) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => lines.push(line) },
    ...options,
  });
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes JSON lines with the level as a name', () => {
    const { logger, lines } = capture();
    logger.child({ subsystem: 'mirror' }).info({ projectId: 'p1' }, 'synced');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      subsystem: 'mirror',
      projectId: 'p1',
      msg: 'synced',
      level: 'info',
    });
  });

  it('redacts token fields and scrubs the token text anywhere in a line', () => {
    const token = 'glt_test_secret_value';
    const { logger, lines } = capture({ secret: token });
    logger.info({ token, headers: { authorization: `Bearer ${token}` } }, 'connecting');
    logger.warn(`failed with ${token} inside a message`);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain(token);
    expect(lines.join('')).toContain('[REDACTED]');
  });

  it('prefixes each line with its syslog priority for journald (journalctl -p warning)', () => {
    const { logger, lines } = capture({ syslogPrefix: true });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    logger.fatal('f');
    expect(lines.map((line) => line.slice(0, 3))).toEqual(['<7>', '<6>', '<4>', '<3>', '<2>']);
    expect(JSON.parse(lines[2]!.slice(3))).toMatchObject({ level: 'warn', msg: 'w' });
  });

  it('writes one readable line per entry on a terminal, the token scrubbed there too', () => {
    const token = 'glt_test_pretty_value';
    const { logger, lines } = capture({ format: 'pretty', secret: token });
    logger.child({ subsystem: 'mirror' }).warn({ projectId: 'p_1' }, `pass failed near ${token}`);
    expect(lines).toHaveLength(1);
    const line = stripVTControlCharacters(lines[0]!);
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: pass failed near \[REDACTED\] .*"projectId":"p_1"/,
    );
    expect(line.trimEnd().split('\n')).toHaveLength(1);
    expect(line).not.toContain(token);
  });

  it("knows journald's stream by JOURNAL_STREAM's device and inode, not by the variable alone", () => {
    const fd = openSync(join(tempDir(), 'stream'), 'w');
    try {
      const { dev, ino } = fstatSync(fd);
      expect(stdoutIsJournal({ JOURNAL_STREAM: `${dev}:${ino}` }, fd)).toBe(true);
      expect(stdoutIsJournal({ JOURNAL_STREAM: `${dev}:${ino + 1}` }, fd)).toBe(false);
      expect(stdoutIsJournal({}, fd)).toBe(false);
    } finally {
      closeSync(fd);
    }
  });
});

describe('plainLine', () => {
  it('says the level (info says none), the project, token or item, the message and its error', () => {
    const line = (entry: Record<string, unknown>) =>
      plainLine(JSON.stringify({ service: 'projmirror', time: 'x', ...entry }));
    expect(line({ level: 'warn', projectId: 'p_1', err: 'boom', msg: 'pass failed' })).toBe(
      'projmirror: warning: project p_1: pass failed: boom\n',
    );
    expect(line({ level: 'info', msg: 'sync done', requests: 3 })).toBe('projmirror: sync done\n');
    expect(line({ level: 'debug', tokenLabel: 'team', reason: 'x', msg: 'retrying' })).toBe(
      'projmirror: debug: token "team": retrying: x\n',
    );
    expect(
      line({
        level: 'error',
        projectId: 'p_2',
        item: 7,
        op: 'task.update',
        code: 'gone',
        msg: 'no',
      }),
    ).toBe('projmirror: error: project p_2: item 7 task.update: no: gone\n');
    expect(plainLine('not json\n')).toBe('not json\n');
  });
});
