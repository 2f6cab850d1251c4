/**
 * Every command the README tells a user to run (each line of its `sh` blocks, each `$` line of
 * its `console` blocks, each statement of its `sql` blocks, and any line of another block that
 * starts with a command) is run by a test as that user would: here, by the test file named for
 * its section (which must read that section's blocks), or, for the few that cannot run here,
 * listed below with the reason.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { readme } from '../ops/readme-blocks.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'glt_test_readme_commands_0123456789';
/** `projmirror` on the shell's PATH: this checkout's CLI. */
const SHIM = `projmirror() { "${process.execPath}" ${CLI_NODE_ARGS.map((a) => `"${a}"`).join(' ')} "$@"; }`;

/** One command of the README: the `## section` it is under, its block's language, the text. */
interface ReadmeCommand {
  heading: string;
  language: string;
  command: string;
}

/** A line of a block that is not a shell block but starts with a command. */
const COMMAND_WORD =
  /^(sudo\s+)?(projmirror|npx|npm|node|sqlite3|duckdb|psql|systemctl|journalctl|curl)\s/;

/** The commands of one fenced block. */
function commandsOf(language: string, body: string): string[] {
  if (language === 'sql') {
    return body
      .split(';')
      .map((statement) => statement.trim())
      .filter((statement) => statement !== '');
  }
  const lines = body.split('\n').map((line) => line.trim());
  if (language === 'console') {
    return lines.filter((line) => line.startsWith('$ ')).map((line) => line.slice(2).trim());
  }
  if (language === 'sh' || language === 'bash' || language === 'shell') {
    return lines
      .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
      .filter((line) => line !== '')
      .flatMap((line) => line.split(/\s+&&\s+/));
  }
  return lines.filter((line) => COMMAND_WORD.test(line));
}

/** Every command of the README's fenced blocks, in order. */
function readmeCommands(): ReadmeCommand[] {
  const found: ReadmeCommand[] = [];
  let heading = '';
  let block: { language: string; lines: string[] } | undefined;
  for (const line of readme().split('\n')) {
    if (block === undefined && line.startsWith('## ')) heading = line.slice(3).trim();
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence === null) {
      block?.lines.push(line);
    } else if (block === undefined) {
      block = { language: fence[1] ?? '', lines: [] };
    } else {
      const { language } = block;
      for (const command of commandsOf(language, block.lines.join('\n'))) {
        found.push({ heading, language, command });
      }
      block = undefined;
    }
  }
  return found;
}

/** Sections whose blocks a test file runs whole, as written (it reads them by their heading). */
const RUN_ELSEWHERE: Record<string, string> = {
  'Try it against the simulator': 'test/docs/try-it.test.ts',
  Install: 'test/ops/install.test.ts',
  'Running under systemd': 'test/ops/install.test.ts',
  'Running several daemons on PostgreSQL': 'test/ops/postgres-doc.test.ts',
};

/** Commands no test runs here as written, and why; each reason names what runs it instead. */
const CANNOT_RUN: Record<string, string> = {
  'npm ci':
    'installs the dependencies the suite itself runs on: .ci/run runs it before npm test, and test/ops/install.test.ts installs the packed tarball',
  'npm test': 'the suite itself: .ci/run runs it',
  'sudo systemctl daemon-reload':
    'needs systemd as PID 1: test/ops/install.test.ts runs the block into a temporary root (systemctl --root enable), test/ops-root/nspawn.sh (root, .ci/run) runs it as written in a booted container',
  'sudo systemctl enable --now projmirror':
    'needs systemd as PID 1: test/ops/install.test.ts runs the block into a temporary root (systemctl --root enable), test/ops-root/nspawn.sh (root, .ci/run) runs it as written in a booted container',
};

/** The commands this file runs: the main job, and the Reporting section's example. */
const RUN_HERE = {
  demo: (c: ReadmeCommand) => c.heading === 'Two commands' && c.command === 'npm run demo',
  reporting: (c: ReadmeCommand) => c.heading === 'Reporting' && c.language === 'console',
};

/**
 * Runs `script` in bash with `projmirror` on its PATH (asynchronously: the simulator answers
 * from this process); fails the test with its output unless it exits 0.
 */
async function shell(script: string, cwd: string): Promise<string> {
  const child = spawn('bash', ['-c', `set -o pipefail\n${SHIM}\n${script}`], {
    cwd,
    env: Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('PROJMIRROR_')),
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect({ script, code, stderr }).toMatchObject({ code: 0 });
  return stdout;
}

/** The README's output lines that follow `$ command` in its console block. */
function shownOutput(command: string): string[] {
  const text = readme();
  const start = text.indexOf(`$ ${command}\n`) + `$ ${command}\n`.length;
  const lines: string[] = [];
  for (const line of text.slice(start).split('\n')) {
    if (line.startsWith('$ ') || line.startsWith('```')) break;
    lines.push(line);
  }
  return lines;
}

describe('every command the README shows', () => {
  const commands = readmeCommands();

  it('finds them all: projmirror, npm, systemctl, SQL', () => {
    const words = new Set(commands.map(({ command }) => command.split(/\s+/)[0]));
    for (const word of ['npm', 'npx', 'projmirror', 'sudo', 'CREATE'])
      expect(words).toContain(word);
    expect(commands.filter(RUN_HERE.reporting).map(({ command }) => command)).toEqual([
      'projmirror report',
      'projmirror export --format csv --out reports',
    ]);
  });

  it('is run by a test, or listed with the reason it cannot run here', () => {
    const uncovered: string[] = [];
    for (const command of commands) {
      if (Object.values(RUN_HERE).some((runs) => runs(command))) continue;
      if (command.command in CANNOT_RUN) continue;
      const file = RUN_ELSEWHERE[command.heading];
      if (file === undefined) {
        uncovered.push(`${command.heading}: ${command.command}`);
        continue;
      }
      // The file reads the section's blocks by its heading.
      const source = readFileSync(join(REPO, file), 'utf8');
      const named = [`'${command.heading}'`, `"${command.heading}"`];
      if (!named.some((text) => source.includes(text))) {
        uncovered.push(`${command.heading}: ${command.command} (${file} does not read it)`);
      }
    }
    expect(uncovered).toEqual([]);
    // Each listed command is still in the README (a stale entry hides nothing).
    const shown = new Set(commands.map(({ command }) => command));
    for (const listed of Object.keys(CANNOT_RUN)) expect(shown, listed).toContain(listed);
    for (const reason of Object.values(CANNOT_RUN)) {
      for (const file of reason.match(/test\/[\w/.-]+\.(ts|sh)/g) ?? []) {
        expect(existsSync(join(REPO, file)), file).toBe(true);
      }
    }
    expect(readFileSync(join(REPO, 'test/ops-root/nspawn.sh'), 'utf8')).toContain(
      "readme_block 'Running under systemd'",
    );
  });

  it('npm run demo, in a checkout: the main job against the embedded simulator', async () => {
    const [demo] = commands.filter(RUN_HERE.demo);
    expect(demo).toBeDefined();
    // A checkout after `npm ci`: the package, its built dist/ and node_modules.
    const dir = tempDir();
    copyFileSync(join(REPO, 'package.json'), join(dir, 'package.json'));
    for (const name of ['bin', 'dist', 'node_modules', 'schema.sql']) {
      symlinkSync(join(REPO, name), join(dir, name));
    }
    const out = await shell(demo!.command, dir);
    expect(out).toMatch(/1\. Synced 3 projects/);
    expect(out).toMatch(/3 done, 1 failed/);
    expect(existsSync(join(dir, 'demo.sqlite'))).toBe(true);
  }, 90_000);

  it('the Reporting example, against the simulator it names (--projects 2 --tasks 6), synced once', async () => {
    const sim = await startTestSimulator({ projects: 2, tasks: 6, tokens: [TOKEN] });
    const dir = tempDir();
    writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
    await shell(
      `projmirror sync --base-url ${sim.baseUrl} --token-file token --log-level warn`,
      dir,
    );
    const [report, exported] = commands.filter(RUN_HERE.reporting).map(({ command }) => command);

    const table = (await shell(report!, dir)).split('\n');
    const documented = shownOutput(report!);
    // The same tables: title, columns, projects; days late and dates move with today.
    expect(table[0]).toMatch(/^Project progress \(2 projects, \d{4}-\d{2}-\d{2} UTC\)$/);
    expect(table[1]).toBe(documented[1]);
    expect(table.slice(2, 4).map((line) => line.split(/\s{2,}/).slice(0, 3))).toEqual(
      documented.slice(2, 4).map((line) => line.split(/\s{2,}/).slice(0, 3)),
    );
    const overdue = documented.find((line) => line.startsWith('PROJECT         TASK ID'));
    expect(overdue).toBeDefined();
    expect(table).toContain(overdue);

    const files = (await shell(exported!, dir)).trim().split('\n');
    // Every file the README lists is written, with a count of rows; the counts that do not
    // depend on today's date are the README's.
    const written = new Map(files.map((line) => line.split('\t') as [string, string]));
    for (const line of shownOutput(exported!).filter((l) => l !== '')) {
      const [file, rows] = line.split('\t');
      expect(written.get(file!), file).toMatch(/^\d+ rows?$/);
      expect(existsSync(join(dir, file!)), file).toBe(true);
      if (/v_project_progress|v_tasks(_pending)?\.csv/.test(file!))
        expect(written.get(file!)).toBe(rows);
    }
  }, 90_000);
});
