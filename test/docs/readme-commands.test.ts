/**
 * Every command the documentation tells a user to run (each line of the `sh` blocks of the README
 * and of every page of docs/, each `$` line of their `console` blocks, each statement of their
 * `sql` blocks, and any line of another block that starts with a command) is run by a test as
 * that user would: here, by the test file named for its page and section (which must read that
 * section's blocks), or, for the few that cannot run here, listed below with the reason.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLI_NODE_ARGS } from '../fixtures/cli.js';
import { tempDir } from '../fixtures/db.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { docPages, REPO } from './pages.js';

const TOKEN = 'glt_test_readme_commands_0123456789';
/** `projmirror` on the shell's PATH: this checkout's CLI. */
const SHIM = `projmirror() { "${process.execPath}" ${CLI_NODE_ARGS.map((a) => `"${a}"`).join(' ')} "$@"; }`;

/** One documented command: its page, the `#` or `##` heading it is under, its block's language. */
interface DocCommand {
  page: string;
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

/** Every command of the fenced blocks of the README and docs/, page by page, in order. */
function documentedCommands(): DocCommand[] {
  const found: DocCommand[] = [];
  for (const { path: page, text } of docPages()) {
    let heading = '';
    let block: { language: string; lines: string[] } | undefined;
    for (const line of text.split('\n')) {
      if (block === undefined && /^#{1,2} /.test(line)) heading = line.replace(/^#+ /, '').trim();
      const fence = /^```(\S*)\s*$/.exec(line);
      if (fence === null) {
        block?.lines.push(line);
      } else if (block === undefined) {
        block = { language: fence[1] ?? '', lines: [] };
      } else {
        const { language } = block;
        for (const command of commandsOf(language, block.lines.join('\n'))) {
          found.push({ page, heading, language, command });
        }
        block = undefined;
      }
    }
  }
  return found;
}

/**
 * Sections whose blocks a test file runs whole, as written: it reads them by their heading (or,
 * with `heading: '*'`, every block of `language` on the page, naming the page).
 */
const RUN_ELSEWHERE: Array<{ page: string; heading: string; language?: string; file: string }> = [
  { page: 'README.md', heading: 'Try it against the simulator', file: 'test/docs/try-it.test.ts' },
  { page: 'README.md', heading: 'Install', file: 'test/ops/install.test.ts' },
  { page: 'README.md', heading: 'Running under systemd', file: 'test/ops/install.test.ts' },
  {
    page: 'docs/postgresql.md',
    heading: 'Running several daemons on PostgreSQL',
    file: 'test/ops/postgres-doc.test.ts',
  },
  // Every query of the schema's PostgreSQL section, against a real server.
  {
    page: 'docs/schema.md',
    heading: 'PostgreSQL',
    language: 'sql',
    file: 'test/store/postgres-schema.test.ts',
  },
  // The change feed's commands and its DuckDB example, between syncs.
  { page: 'docs/changes.md', heading: 'Reading the feed', file: 'test/docs/changes-doc.test.ts' },
  {
    page: 'docs/changes.md',
    heading: 'Loading it into DuckDB, incrementally',
    file: 'test/docs/changes-doc.test.ts',
  },
  // Every query before it, against a fresh SQLite mirror.
  { page: 'docs/schema.md', heading: '*', language: 'sql', file: 'test/report/schema-doc.test.ts' },
];

/** The entry of RUN_ELSEWHERE that runs `command`, if any: its own heading first, then the page's. */
function runElsewhere(command: DocCommand): (typeof RUN_ELSEWHERE)[number] | undefined {
  const fits = (entry: (typeof RUN_ELSEWHERE)[number], heading: string) =>
    entry.page === command.page &&
    entry.heading === heading &&
    (entry.language === undefined || entry.language === command.language);
  return (
    RUN_ELSEWHERE.find((entry) => fits(entry, command.heading)) ??
    RUN_ELSEWHERE.find((entry) => fits(entry, '*'))
  );
}

/** Whether the test file's source reads the entry's section: by its heading, or names the page. */
function reads(source: string, entry: (typeof RUN_ELSEWHERE)[number]): boolean {
  if (entry.heading === '*') return source.includes(entry.page);
  const named = [`'${entry.heading}'`, `"${entry.heading}"`, `## ${entry.heading}`];
  return named.some((text) => source.includes(text));
}

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

/** The commands this file runs: the main job, an edit queued and sent, and two examples. */
const RUN_HERE = {
  demo: (c: DocCommand) =>
    c.page === 'README.md' && c.heading === 'Two commands' && c.command === 'npm run demo',
  edit: (c: DocCommand) =>
    c.page === 'README.md' && c.heading === 'Queueing an edit' && c.language === 'console',
  reporting: (c: DocCommand) => c.page === 'docs/reporting.md' && c.language === 'console',
  readOnly: (c: DocCommand) =>
    c.page === 'docs/schema.md' && c.heading === 'Connecting a BI tool read-only',
};

/**
 * Runs `script` in bash with `projmirror` on its PATH (asynchronously: the simulator answers
 * from this process), with no `PROJMIRROR_*` variable but those of `env` and `input` on its
 * standard input; fails the test with its output unless it exits 0.
 */
async function shell(
  script: string,
  cwd: string,
  { env = {}, input }: { env?: Record<string, string>; input?: string } = {},
): Promise<string> {
  const child = spawn('bash', ['-c', `set -o pipefail\n${SHIM}\n${script}`], {
    cwd,
    env: {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !key.startsWith('PROJMIRROR_')),
      ),
      ...env,
    },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  if (input !== undefined) child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect({ script, code, stderr }).toMatchObject({ code: 0 });
  return stdout;
}

/** The output lines that follow `$ command` in a console block of `page`. */
function shownOutput(page: string, command: string): string[] {
  const text = docPages().find(({ path }) => path === page)!.text;
  const at = text.indexOf(`$ ${command}\n`);
  expect(at, `${page}: $ ${command}`).toBeGreaterThanOrEqual(0);
  const lines: string[] = [];
  for (const line of text.slice(at + `$ ${command}\n`.length).split('\n')) {
    if (line.startsWith('$ ') || line.startsWith('```')) break;
    lines.push(line);
  }
  return lines;
}

/** A mirror of a simulator of `projects` x `tasks`, synced once, in a fresh directory. */
async function syncedMirror(projects: number, tasks: number) {
  const sim = await startTestSimulator({ projects, tasks, tokens: [TOKEN] });
  const dir = tempDir();
  writeFileSync(join(dir, 'token'), TOKEN, { mode: 0o600 });
  await shell(`projmirror sync --base-url ${sim.baseUrl} --token-file token --log-level warn`, dir);
  return { sim, dir, mirror: join(dir, 'projmirror.sqlite') };
}

/** What changes from run to run in a command's output: ids, keys, times, durations. */
function shape(line: string): string {
  return line
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
    .replace(/\d+(\.\d+)? s$/, '<duration>');
}

describe('every command the README and docs/ show', () => {
  const commands = documentedCommands();

  it('finds them all: projmirror, npm, systemctl, SQL, on the README and pages of docs/', () => {
    const words = new Set(commands.map(({ command }) => command.split(/\s+/)[0]));
    for (const word of ['npm', 'npx', 'projmirror', 'sudo', 'CREATE', 'SELECT', 'sqlite3'])
      expect(words).toContain(word);
    const pages = new Set(commands.map(({ page }) => page));
    for (const page of ['README.md', 'docs/postgresql.md', 'docs/reporting.md', 'docs/schema.md'])
      expect(pages).toContain(page);
    expect(commands.filter(RUN_HERE.reporting).map(({ command }) => command)).toEqual([
      'projmirror report',
      'projmirror export --format csv --out reports',
    ]);
    expect(commands.filter(RUN_HERE.edit).map(({ command }) => command.split(' ')[1])).toEqual([
      'enqueue',
      'push',
      'outbox',
    ]);
  });

  it('is run by a test, or listed with the reason it cannot run here', () => {
    const uncovered: string[] = [];
    for (const command of commands) {
      if (Object.values(RUN_HERE).some((runs) => runs(command))) continue;
      if (command.command in CANNOT_RUN) continue;
      const where = `${command.page}, ${command.heading}: ${command.command}`;
      const entry = runElsewhere(command);
      if (entry === undefined) {
        uncovered.push(where);
        continue;
      }
      // The file reads the section's blocks by its heading (or the page's, naming it).
      if (!reads(readFileSync(join(REPO, entry.file), 'utf8'), entry)) {
        uncovered.push(`${where} (${entry.file} does not read it)`);
      }
    }
    expect(uncovered).toEqual([]);
    // Each listed command and section is still documented (a stale entry hides nothing).
    const shown = new Set(commands.map(({ command }) => command));
    for (const listed of Object.keys(CANNOT_RUN)) expect(shown, listed).toContain(listed);
    for (const entry of RUN_ELSEWHERE) {
      const runs = commands.filter((command) => runElsewhere(command) === entry);
      expect(runs.length, `${entry.page}, ${entry.heading}`).toBeGreaterThan(0);
    }
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

  it("the README's edit: queued, pushed and listed as shown, with the quick start's settings", async () => {
    const { sim, dir, mirror } = await syncedMirror(2, 6);
    const env = {
      PROJMIRROR_BASE_URL: sim.baseUrl,
      PROJMIRROR_TOKEN_FILE: join(dir, 'token'),
      PROJMIRROR_DB: mirror,
      PROJMIRROR_LOG_LEVEL: 'warn',
    };
    for (const { page, command } of commands.filter(RUN_HERE.edit)) {
      const printed = (await shell(command, dir, { env })).trimEnd().split('\n');
      const shown = shownOutput(page, command);
      expect(printed.map(shape), command).toEqual(shown.map(shape));
    }
    // It reached the service: the task is in progress there.
    const edited = JSON.parse(
      /--body '([^']*)'/.exec(commands.find(RUN_HERE.edit)!.command)![1]!,
    ) as { status: string };
    expect(sim.service.getTask('t_1')!.status).toBe(edited.status);
  }, 90_000);

  it('the Reporting example, against the simulator it names (--projects 2 --tasks 6), synced once', async () => {
    const { dir } = await syncedMirror(2, 6);
    const shownBy = commands.filter(RUN_HERE.reporting);
    const [report, exported] = shownBy.map(({ command }) => command);
    const page = shownBy[0]!.page;

    const table = (await shell(report!, dir)).split('\n');
    const documented = shownOutput(page, report!);
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
    // Every file the page lists is written, with a count of rows; the counts that do not
    // depend on today's date are the page's.
    const written = new Map(files.map((line) => line.split('\t') as [string, string]));
    for (const line of shownOutput(page, exported!).filter((l) => l !== '')) {
      const [file, rows] = line.split('\t');
      expect(written.get(file!), file).toMatch(/^\d+ rows?$/);
      expect(existsSync(join(dir, file!)), file).toBe(true);
      if (/v_project_progress|v_tasks(_pending)?\.csv/.test(file!))
        expect(written.get(file!)).toBe(rows);
    }
  }, 90_000);

  it("the schema's read-only connections open the daemon's mirror, and only an existing one", async () => {
    const { dir, mirror } = await syncedMirror(2, 6);
    const documented = '/var/lib/projmirror/projmirror.sqlite';
    const lines = commands.filter(RUN_HERE.readOnly).map(({ command }) => command);
    expect(lines.map((line) => line.split(' ')[0])).toEqual(['sqlite3', 'python3']);
    for (const line of lines) expect(line).toContain(`file:${documented}?mode=ro`);
    const [sqlite3, python3] = lines.map((line) => line.replaceAll(documented, mirror));
    // The sqlite3 shell, as a reader types into it.
    const count = await shell(sqlite3!, dir, { input: 'SELECT count(*) FROM v_tasks;\n' });
    expect(count.trim()).toBe('12');
    await shell(python3!, dir);
    // Read-only: a missing file is not created.
    const missing = python3!.replaceAll(mirror, join(dir, 'missing.sqlite'));
    const refused = spawnSync('bash', ['-c', missing], { cwd: dir, encoding: 'utf8' });
    expect(refused.status).not.toBe(0);
    expect(existsSync(join(dir, 'missing.sqlite'))).toBe(false);
  }, 90_000);
});
