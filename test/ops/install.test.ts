import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../fixtures/db.js';
import type { Simulator } from '../../src/sim/index.js';
import { startTestSimulator } from '../fixtures/sim.js';
import { startNotifySocket } from './notify-socket.js';
import { docPages, readme, shellBlocks } from '../docs/pages.js';
import { scriptIntoRoot } from './readme-blocks.js';

const TOKEN = 'glt_test_ops_install_0123456789';
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }
).version;

/** Whether `.gitignore` (plain names, `dir/` and `*` globs, as ours has) leaves a name out. */
function ignoredBy(gitignore: string): (name: string, isDirectory: boolean) => boolean {
  const rules = gitignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => ({
      directoryOnly: line.endsWith('/'),
      pattern: new RegExp(
        `^${line
          .replace(/\/$/, '')
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')}$`,
      ),
    }));
  return (name, isDirectory) =>
    name === '.git' ||
    name.endsWith('.tgz') ||
    rules.some((rule) => (!rule.directoryOnly || isDirectory) && rule.pattern.test(name));
}

/**
 * A checkout as a user has it after `npm ci`, from a clone or an unpacked source tarball alike
 * (no git needed): the repository's files but what `.gitignore` leaves out, and its node_modules.
 */
function checkout(): string {
  const dir = join(tempDir('projmirror-checkout-'), 'projmirror');
  const ignored = ignoredBy(readFileSync(join(REPO, '.gitignore'), 'utf8'));
  cpSync(REPO, dir, {
    recursive: true,
    filter: (source) =>
      source === REPO || !ignored(basename(source), lstatSync(source).isDirectory()),
  });
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Runs a bash script with `$ROOT` set; fails the test with its output if it fails. */
function bash(script: string, cwd: string, root: string): string {
  return bashOutput(script, cwd, root).stdout;
}

/** `bash`, with what the script wrote on stderr too. */
function bashOutput(script: string, cwd: string, root: string): { stdout: string; stderr: string } {
  const result = spawnSync('bash', ['-c', script], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ROOT: root, PATH: `${root}/usr/bin:${process.env['PATH'] ?? ''}` },
    timeout: 8 * 60_000,
  });
  if (result.status !== 0) {
    throw new Error(
      `script failed (${result.status}):\n${script}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

/**
 * npm's warnings about install scripts not covered by `allowScripts`, but the one the README
 * shows (projmirror's own `prepare`, which a tarball's install does not run).
 */
function undocumentedScriptWarnings(stderr: string): string[] {
  const documented =
    /^npm warn install-scripts\s*$|allowScripts:$|projmirror@[\d.]+ \(prepare: |Run `npm install -g --allow-scripts=projmirror`/;
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('npm warn install-scripts') && !documented.test(line));
}

/** The [Service] settings of a unit file; repeated keys keep every value. */
function serviceSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of unit.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) section = line;
    if (section !== '[Service]' || line === '' || line.startsWith('#') || !line.includes('='))
      continue;
    const at = line.indexOf('=');
    const key = line.slice(0, at);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(at + 1)]);
  }
  return settings;
}

/** The one value of a setting. */
function one(settings: Map<string, string[]>, key: string): string {
  const values = settings.get(key) ?? [];
  expect(values, key).toHaveLength(1);
  return values[0]!;
}

/** A path of the unit, as it lies under the temporary root. */
const under = (root: string, path: string) => (path.startsWith('/') ? join(root, path) : path);

/** The unit's user and group ids, from the root's passwd. */
function userIds(root: string, user: string): { uid: number; gid: number } {
  const line = readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${user}:`));
  expect(line, `user ${user} in ${root}/etc/passwd`).toBeDefined();
  const [, , uid, gid] = line!.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** What `npm pack` shipped: what a user needs, and nothing else. */
function expectPackContents(tarball: string): void {
  const packed = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
  const needed = ['LICENSE', 'README.md', 'docs/schema.md', 'docs/grafana-dashboard.json'];
  // Every page the README links to.
  needed.push(...docPages().map(({ path }) => path));
  needed.push(
    'schema.sql',
    'systemd/projmirror.service',
    'dist/src/cli/main.js',
    'bin/projmirror.js',
  );
  for (const file of needed) expect(packed).toContain(`package/${file}`);
  const unwanted = /\.map$|^package\/(src|test|bench)\/|^package\/dist\/(bench|test)\//;
  expect(packed.filter((file) => unwanted.test(file))).toEqual([]);
  expect(
    packed.filter((file) => file.startsWith('package/dist/') && !file.endsWith('.js')),
  ).toEqual([]);
}

/**
 * The README's edit of the installed config: the service's URLs (here the simulator's); its
 * `db`, an absolute path, as it lies under the root. Returns the mirror's path.
 */
function pointConfigAt(root: string, sim: Simulator): string {
  const file = join(root, 'etc/projmirror/config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  expect(config['db']).toBe('/var/lib/projmirror/projmirror.sqlite');
  const db = under(root, String(config['db']));
  const urls = { 'base-url': sim.baseUrl, 'realtime-url': sim.realtimeUrl, 'metrics-port': 0 };
  writeFileSync(file, JSON.stringify({ ...config, ...urls, db }));
  return db;
}

/**
 * `projmirror status --json` with no flag, as a member of the unit's group who is not its user
 * would run it on the server. `$CONFIGURATION_DIRECTORY` stands for /etc/projmirror, which lies
 * under the root here; the command finds config.json there as it finds /etc/projmirror/config.json.
 */
function statusAsGroupMember(root: string, gid: number): ReturnType<typeof spawnSync> {
  const nobody = 65534;
  return spawnSync(
    'setpriv',
    [
      `--reuid=${nobody}`,
      `--regid=${gid}`,
      '--clear-groups',
      join(root, 'usr/bin/projmirror'),
      'status',
      '--json',
    ],
    {
      cwd: '/',
      encoding: 'utf8',
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        CONFIGURATION_DIRECTORY: join(root, 'etc/projmirror'),
      },
      timeout: 60_000,
    },
  );
}

/** The unit's service directories, created as systemd creates them for its user. */
function serviceDirectories(root: string, unit: Map<string, string[]>, uid: number, gid: number) {
  const mode = Number.parseInt(one(unit, 'StateDirectoryMode'), 8);
  const state = join(root, 'var/lib', one(unit, 'StateDirectory'));
  mkdirSync(state, { recursive: true, mode });
  chownSync(state, uid, gid);
  const credentials = join(root, 'run/credentials/projmirror.service');
  mkdirSync(credentials, { recursive: true });
  const [name, source] = one(unit, 'LoadCredential').split(':');
  copyFileSync(under(root, source!), join(credentials, name!));
  chownSync(join(credentials, name!), uid, gid);
  chmodSync(join(credentials, name!), 0o400);
  chownSync(credentials, uid, gid);
  chmodSync(credentials, 0o500);
  return { credentials };
}

/**
 * Starts the unit's ExecStart= under `root` as systemd would: as its User= (setpriv, with the
 * ids from the root's passwd), its Environment=, WorkingDirectory=, UMask=, the credential
 * directory and a notify socket.
 */
function startAsUnit(root: string, notifySocket: string) {
  const unit = serviceSettings(
    readFileSync(join(root, 'etc/systemd/system/projmirror.service'), 'utf8'),
  );
  expect(one(unit, 'Type')).toBe('notify');
  const { uid, gid } = userIds(root, one(unit, 'User'));
  expect(uid).toBeGreaterThan(0);
  const { credentials } = serviceDirectories(root, unit, uid, gid);
  const environment = Object.fromEntries(
    (unit.get('Environment') ?? []).map((entry) => {
      const [key, value] = entry.split(/=(.*)/s);
      return [key!, under(root, value!)];
    }),
  );
  const [command, ...args] = one(unit, 'ExecStart')
    .split(' ')
    .map((word) => under(root, word));
  expect(command).toBe(join(root, 'usr/bin/projmirror'));
  const asUser = [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups'];
  const withUmask = ['sh', '-c', `umask ${one(unit, 'UMask')}; exec "$@"`, 'sh'];
  const daemon = spawn('setpriv', [...asUser, ...withUmask, command!, ...args], {
    cwd: under(root, one(unit, 'WorkingDirectory')),
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      ...environment,
      CREDENTIALS_DIRECTORY: credentials,
      // What systemd sets for ConfigurationDirectory=projmirror, as it lies under the root.
      CONFIGURATION_DIRECTORY: join(root, 'etc', one(unit, 'ConfigurationDirectory')),
      NOTIFY_SOCKET: notifySocket,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (daemon.exitCode === null) daemon.kill('SIGKILL');
  });
  const output = { stdout: '', stderr: '' };
  daemon.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  daemon.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const ended = new Promise<number | null>((resolve) =>
    daemon.on('close', (code) => resolve(code)),
  );
  return { daemon, output, ended, uid, gid };
}

/** Polls /healthz until it answers 200 (or gives up after ~10 s); returns the last answer. */
async function healthOf(port: number): Promise<Response> {
  let health = await fetch(`http://127.0.0.1:${port}/healthz`);
  for (let tries = 0; tries < 200 && health.status !== 200; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    health = await fetch(`http://127.0.0.1:${port}/healthz`);
  }
  return health;
}

describe("the README's install and systemd steps", () => {
  it(
    'install from npm pack, create the user, and serve /healthz as that user, as the unit runs it',
    async () => {
      expect(process.getuid?.(), 'run as root, as the README (sudo) does').toBe(0);
      expect(execFileSync('npm', ['prefix', '-g'], { encoding: 'utf8' }).trim()).toBe('/usr');
      const sim = await startTestSimulator({ projects: 2, tasks: [40, 3], tokens: [TOKEN] });
      const root = tempDir('projmirror-root-');
      chmodSync(root, 0o755);
      // The directories every systemd system has, that the README's commands write into.
      for (const dir of ['etc/systemd/system', 'usr/lib/sysusers.d', 'var/lib', 'run']) {
        mkdirSync(join(root, dir), { recursive: true });
      }
      const repo = checkout();
      writeFileSync(join(repo, 'token'), `${TOKEN}\n`, { mode: 0o600 });

      const [install, service] = [shellBlocks('Install'), shellBlocks('Running under systemd')];
      expect([install.length, service.length]).toEqual([1, 1]);
      const installed = bashOutput(scriptIntoRoot(install[0]!), repo, root);
      expect(installed.stdout.trim().split('\n').at(-1)).toBe(VERSION);
      // The README's install meets no warning it does not show (npm 11: allowScripts).
      expect(undocumentedScriptWarnings(installed.stderr)).toEqual([]);
      expect(readme()).toContain(`projmirror@${VERSION} (prepare: npm run build)`);
      expectPackContents(join(repo, `projmirror-${VERSION}.tgz`));
      bash(scriptIntoRoot(service[0]!), repo, root);
      const mirror = pointConfigAt(root, sim);
      expect(statSync(join(root, 'etc/projmirror')).mode & 0o777).toBe(0o755);
      expect(statSync(join(root, 'etc/projmirror/token')).mode & 0o777).toBe(0o600);
      // Enabled: linked (as the root will see it) from the target that wants the unit.
      const wants = join(root, 'etc/systemd/system/multi-user.target.wants/projmirror.service');
      expect(readlinkSync(wants)).toBe('/etc/systemd/system/projmirror.service');

      const notify = await startNotifySocket(tempDir());
      chmodSync(dirname(notify.path), 0o755);
      chmodSync(notify.path, 0o777);
      const unitRun = startAsUnit(root, notify.path);
      await notify.waitFor('READY=1', 60_000);
      const { output } = unitRun;
      const listening = output.stdout
        .split('\n')
        .find((line) => line.includes('metrics listening'));
      expect(listening, output.stderr).toBeDefined();
      const health = await healthOf((JSON.parse(listening!) as { port: number }).port);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, realtime: true, tokenRefused: false });
      expect(statSync(mirror).uid).toBe(unitRun.uid);
      expect(statSync(mirror).mode & 0o777).toBe(0o640);
      // The shared settings: readable by the unit's group, not by others.
      const config = statSync(join(root, 'etc/projmirror/config.json'));
      expect([config.uid, config.gid, config.mode & 0o777]).toEqual([0, unitRun.gid, 0o640]);
      // status on the server finds the daemon's mirror with no flag, beside the running daemon.
      // (READY=1 comes as the start-up reconcile begins: ask until both projects are in.)
      let listed: string[] = [];
      for (let tries = 0; tries < 40 && listed.length < 2; tries++) {
        if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        const status = statusAsGroupMember(root, unitRun.gid);
        expect(status.stderr).toBe('');
        expect(status.status).toBe(0);
        const report = JSON.parse(String(status.stdout)) as { projects: { id: string }[] };
        listed = report.projects.map((project) => project.id).sort();
      }
      expect(listed).toEqual(['p_1', 'p_2']);
      expect(JSON.parse(output.stdout.split('\n')[0]!)).toMatchObject({
        msg: 'projmirror starting',
        version: VERSION,
      });

      unitRun.daemon.kill('SIGTERM');
      expect(await unitRun.ended).toBe(0);
      await notify.waitFor('STOPPING=1');
      expect(output.stderr).toBe('');
      expect(output.stdout).not.toContain(TOKEN);
    },
    10 * 60_000,
  );
});
