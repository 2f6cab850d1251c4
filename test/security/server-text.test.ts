/**
 * Text from the service shown to a person (issue 12, item 11): names with terminal escapes,
 * newlines and tens of kilobytes reach the `report` and `status` tables escaped and cut.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openEngine } from '../../src/daemon/wiring.js';
import { tempDatabase } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { cli } from '../outbox/in-process-cli.js';
import { singleToken } from '../../src/tokens/index.js';

const TOKEN = 'glt_test_server_text_0123456789';
/** Sets the terminal title, rings the bell, clears the screen, then forges a line. */
const FORGED = 'Evil\u001b]0;pwned\u0007\u001b[2J\nprojmirror: all projects consistent\r';
const HUGE = 'H'.repeat(60_000);

describe('server text in tables', () => {
  it('escapes control characters and cuts long values in report and status', async () => {
    const task = (id: string, name: string) => ({
      id,
      name,
      startDate: '2020-01-01',
      endDate: '2020-01-02',
      status: 'NotStarted',
      progress: 0,
      assigneeIds: [],
    });
    const sim = await startTestSimulator({
      tokens: [TOKEN],
      limits: false,
      fixture: {
        projects: [
          {
            id: 'p_evil',
            name: FORGED,
            members: [{ id: 'm_1', name: FORGED, kind: 'person' }],
            tasks: [task('t_1', FORGED), task('t_2', HUGE)],
          },
        ],
      },
    });
    const { db, file } = tempDatabase();
    const engine = await openEngine(
      { baseUrl: new URL(sim.baseUrl), tokens: singleToken(TOKEN) },
      { db, logger: pino({ level: 'silent' }) },
    );
    expect((await engine.mirror.syncAll()).ok).toBe(true);
    await engine.close();

    for (const argv of [['report'], ['status']]) {
      const run = await cli(...argv, '--db', file);
      expect(run.code, argv[0]).toBe(0);
      // No control character but the line feeds between lines.
      // eslint-disable-next-line no-control-regex
      expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
      expect(run.stdout).not.toContain('\nprojmirror: all projects consistent');
      expect(run.stdout).toContain('Evil\\x1b]0;pwned\\x07\\x1b[2J\\nprojmirror');
      for (const line of run.stdout.split('\n')) expect(line.length).toBeLessThan(1_000);
    }
    const report = await cli('report', '--db', file);
    expect(report.stdout).toContain(`${'H'.repeat(39)}…`);
  });
});
