/** Log lines name each token by its label (`tokenLabel`, which redaction leaves alone), never by value. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';

const CLIENT = 'glt_test_label_client_0123456789';
const TEAM = 'glt_test_label_team_0123456789ab';

describe('token labels in logs', () => {
  it('show "tokenLabel" with the label on the lines of each token, and no token value', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: [3, 2], tokens: [CLIENT, TEAM] });
    const dir = tempDir();
    const files = [
      ['client.token', CLIENT],
      ['team.token', TEAM],
    ].map(([name, token]) => {
      const file = join(dir, name!);
      writeFileSync(file, `${token}\n`, { mode: 0o600 });
      return file;
    });
    const run = await runCli([
      'sync',
      '--base-url',
      sim.baseUrl,
      '--token-file',
      files.join(':'),
      '--db',
      join(dir, 'mirror.sqlite'),
      '--log-level',
      'debug',
      '--log-format',
      'json',
    ]);
    expect(run.code).toBe(0);
    const output = run.stdout + run.stderr;
    const lines = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const labels = new Set(lines.map((line) => line['tokenLabel']).filter(Boolean));
    expect([...labels].sort()).toEqual(['client', 'team']);
    expect(output).not.toContain('"token":"[REDACTED]"');
    for (const token of [CLIENT, TEAM]) expect(output).not.toContain(token);
  });
});
