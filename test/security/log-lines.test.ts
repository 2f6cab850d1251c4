/** Log lines never hold the token, whatever field or text carries it (issue 12, item 10). */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/daemon/logger.js';
import { NetworkError, errorLine } from '../../src/domain/index.js';

function capture(secret: string) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => lines.push(line) },
    secret,
  });
  return { logger, lines };
}

describe('log lines', () => {
  it('scrub the token from messages, fields and error lines, even where JSON escapes it', () => {
    for (const token of ['glt_test_plain_0123', 'glt_test_"quoted"\\back']) {
      const { logger, lines } = capture(token);
      const error = new NetworkError({ route: `GET getTask id-Bearer ${token}` }, 'reset');
      logger.warn({ err: errorLine(error), reason: `Bearer ${token}` }, `echoed ${token}`);
      logger.child({ subsystem: 'realtime' }).info({ close: { reason: token } }, 'closed');
      expect(lines).toHaveLength(2);
      for (const line of lines) {
        expect(line).not.toContain(token);
        expect(line).not.toContain(JSON.stringify(token).slice(1, -1));
        expect(JSON.parse(line)).toBeTypeOf('object');
      }
      expect(lines[0]).toContain('Bearer [REDACTED]');
    }
  });
});
