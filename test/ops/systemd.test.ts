import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT_TOKEN_REFUSED, EXIT_USAGE } from '../../src/cli/exit.js';
import { tempDir } from '../fixtures/db.js';
import { allDocs } from '../docs/pages.js';

const UNIT = fileURLToPath(new URL('../../systemd/projmirror.service', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/projmirror.js', import.meta.url));
/** The most exposure `systemd-analyze security` may report for the unit (out of 10). */
const MAX_EXPOSURE = 1.5;

/** The unit with ExecStart= pointed at this checkout (the machine has no /usr/bin/projmirror). */
function unitHere(): string {
  const file = join(tempDir(), 'projmirror.service');
  writeFileSync(file, readFileSync(UNIT, 'utf8').replaceAll('/usr/bin/projmirror', BIN));
  return file;
}

function analyze(args: string[]) {
  return spawnSync('systemd-analyze', args, { encoding: 'utf8', timeout: 60_000 });
}

describe('systemd/projmirror.service', () => {
  it('passes systemd-analyze verify', () => {
    const verify = analyze(['verify', unitHere()]);
    expect({ status: verify.status, stderr: verify.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('has an exposure of at most 1.5 (systemd-analyze security --offline=yes), the score the documentation gives', () => {
    const security = analyze(['security', '--offline=yes', '--no-pager', unitHere()]);
    expect(security.status, security.stderr).toBe(0);
    const score = Number(
      /Overall exposure level for projmirror\.service: (\d+\.\d)/.exec(security.stdout)?.[1],
    );
    expect(score).toBeLessThanOrEqual(MAX_EXPOSURE);
    // The README and docs/operations.md both state it.
    const stated = [
      ...allDocs().matchAll(/exposure\s+(?:for\s+this\s+unit\s+is\s+)?\*\*(\d+\.\d) OK\*\*/g),
    ].map((match) => match[1]);
    expect(stated).toHaveLength(2);
    expect(new Set(stated)).toEqual(new Set([score.toFixed(1)]));
    const threshold = analyze([
      'security',
      '--offline=yes',
      '--no-pager',
      `--threshold=${MAX_EXPOSURE * 10}`,
      unitHere(),
    ]);
    expect(threshold.status).toBe(0);
  });

  it('is not restarted on the exits no restart fixes, and waits for READY=1', () => {
    const unit = readFileSync(UNIT, 'utf8');
    expect(unit).toMatch(
      new RegExp(`^RestartPreventExitStatus=${EXIT_USAGE} ${EXIT_TOKEN_REFUSED}$`, 'm'),
    );
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^Type=notify$/m);
    expect(unit).toMatch(/^NotifyAccess=all$/m);
    expect(unit).toMatch(/^ConfigurationDirectory=projmirror$/m);
    expect(unit).toMatch(/^LoadCredential=projmirror-token:\/etc\/projmirror\/token$/m);
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/projmirror run$/m);
  });
});
