import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/daemon/logger.js';

function capture(secret?: string) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => lines.push(line) },
    ...(secret === undefined ? {} : { secret }),
  });
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes JSON lines', () => {
    const { logger, lines } = capture();
    logger.child({ subsystem: 'mirror' }).info({ projectId: 'p1' }, 'synced');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ subsystem: 'mirror', projectId: 'p1', msg: 'synced', level: 30 });
  });

  it('redacts token fields and scrubs the token text anywhere in a line', () => {
    const token = 'glt_test_secret_value';
    const { logger, lines } = capture(token);
    logger.info({ token, headers: { authorization: `Bearer ${token}` } }, 'connecting');
    logger.warn(`failed with ${token} inside a message`);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain(token);
    expect(lines.join('')).toContain('[REDACTED]');
  });
});
