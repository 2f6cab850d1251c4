/**
 * Every option a command accepts, as the CLI itself declares it (each command's yargs builder),
 * is named in that command's `--help` (as an option, or in the last line among the common
 * options it accepts and ignores) and in the documentation (docs/configuration.md): a common
 * option in its Configuration section with its `PROJMIRROR_*` variable (or as a config file key),
 * a command's own option in that command's row of the Commands table. And the other way round:
 * every `--flag` the README or a page of docs/ writes after `projmirror <command>` is one that
 * command declares.
 */
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import type { ListedCommand } from '../../src/cli/command.js';
import { commands } from '../../src/cli/commands/index.js';
import { COMMON_OPTIONS, CONFIG_TOKEN_FILE } from '../../src/cli/common-options.js';
import { runCli } from '../fixtures/cli.js';
import { docPages, docSection as section } from './pages.js';

declare module 'yargs' {
  // yargs' own record of what a builder declared (untyped in @types/yargs).
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- as @types/yargs declares it
  interface Argv<T> {
    getOptions(): { key: Record<string, unknown> };
  }
}

/** yargs' own options, which it shows on every help. */
const BUILT_IN = new Set(['help', 'version']);

/** A command's name and the options its builder declares, positionals aside. */
async function declared(command: ListedCommand): Promise<{ name: string; options: string[] }> {
  const parser = yargs([]);
  (await command.load()).builder(parser);
  const positionals = [...command.command.matchAll(/[<[]([\w-]+)[\]>]/g)].map((m) => m[1]);
  const options = Object.keys(parser.getOptions().key).filter(
    (key) => !BUILT_IN.has(key) && !positionals.includes(key),
  );
  return { name: command.command.split(' ')[0]!, options };
}

/** `--name` as a whole flag in `text` (`--no-name` too, for a boolean on by default). */
function namesFlag(text: string, option: string): boolean {
  return new RegExp(`--(no-)?${option}(?![\\w-])`).test(text);
}

/** The rows of the Commands table whose first cell names `command`. */
function commandRows(command: string): string {
  return section('Commands')
    .split('\n')
    .filter((line) => new RegExp(`^\\| \`${command}[ \`]`).test(line))
    .join('\n');
}

/**
 * Each `projmirror <command> ...` the documentation writes, in a fenced block's line or an inline
 * code span (which may wrap), up to the end of that line or span, or a `|`, `;` or `&&`.
 */
function documentedCommandLines(): Array<{ page: string; line: string }> {
  const found: Array<{ page: string; line: string }> = [];
  for (const { path, text } of docPages()) {
    const blocks = [...text.matchAll(/^```\S*\n([\s\S]*?)^```/gm)];
    const prose = blocks.reduce((rest, block) => rest.replace(block[0], ''), text);
    const pieces = [
      ...blocks.flatMap((block) => block[1]!.split('\n')),
      ...[...prose.matchAll(/`([^`]+)`/g)].map((span) => span[1]!.replace(/\s*\n\s*/g, ' ')),
    ];
    for (const piece of pieces) {
      for (const match of piece.matchAll(/\bprojmirror ([a-z][\w-]*)\b[^|;&`]*/g)) {
        found.push({ page: path, line: match[0] });
      }
    }
  }
  return found;
}

const isCommon = (option: string): option is keyof typeof COMMON_OPTIONS =>
  option in COMMON_OPTIONS;
const variableOf = (option: string) => `PROJMIRROR_${option.toUpperCase().replaceAll('-', '_')}`;

// Each command's module as the CLI loads it when a command line names it.
const all = await Promise.all(commands.map(declared));

describe('every option shown', () => {
  it('finds the options the CLI declares', () => {
    expect(all.map(({ name }) => name)).toContain('sync');
    for (const { name, options } of all) expect(options.length, name).toBeGreaterThan(0);
    expect(all.find(({ name }) => name === 'simulate')!.options).toContain('fail');
  });

  it("in each command's --help", async () => {
    const helps = await Promise.all(all.map(({ name }) => runCli([name, '--help'])));
    const missing: string[] = [];
    all.forEach(({ name, options }, index) => {
      const help = helps[index]!;
      expect(help.code, `${name} --help`).toBe(0);
      for (const option of options) {
        // The config file's token-file under its internal name: refused on the command line
        // and in the environment (checked below), so no help names it.
        if (option === CONFIG_TOKEN_FILE) continue;
        // A hidden `token` is PROJMIRROR_TOKEN: a token is never a flag.
        const shown =
          option === 'token' && !namesFlag(help.stdout, 'token')
            ? help.stdout.includes('PROJMIRROR_TOKEN')
            : namesFlag(help.stdout, option) ||
              (isCommon(option) &&
                'configOnly' in COMMON_OPTIONS[option] &&
                new RegExp(`config file's .*\\b${option}\\b`).test(help.stdout));
        if (!shown) missing.push(`${name} --${option}`);
      }
    });
    expect(missing).toEqual([]);
  }, 60_000);

  it('in the docs: common options in Configuration, with their variables; the rest in Commands', () => {
    const configuration = section('Configuration');
    const missing: string[] = [];
    for (const { name, options } of all) {
      const rows = commandRows(name);
      if (rows === '') missing.push(`Commands: no row for ${name}`);
      // A command without --config (simulate, demo) reads no common option: all are its own.
      const common = options.includes('config');
      for (const option of options) {
        if (option === CONFIG_TOKEN_FILE) continue;
        if (!common) {
          if (!namesFlag(rows, option)) missing.push(`Commands, ${name}: --${option}`);
        } else if (
          option === 'config' ||
          (isCommon(option) && !('configOnly' in COMMON_OPTIONS[option]))
        ) {
          if (!namesFlag(configuration, option)) missing.push(`Configuration: --${option}`);
          if (!configuration.includes(variableOf(option))) {
            missing.push(`Configuration: ${variableOf(option)}`);
          }
        } else if (isCommon(option)) {
          if (!configuration.includes(`\`${option}\``) && !configuration.includes(`"${option}"`)) {
            missing.push(`Configuration: config key ${option}`);
          }
        } else if (option === 'token' && name !== 'enqueue' && name !== 'simulate') {
          if (!configuration.includes('PROJMIRROR_TOKEN')) missing.push('PROJMIRROR_TOKEN');
        } else if (!namesFlag(rows, option)) {
          missing.push(`Commands, ${name}: --${option}`);
        }
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names no flag a command does not declare, in the README or docs/', () => {
    const options = new Map(all.map(({ name, options }) => [name, new Set(options)]));
    const lines = documentedCommandLines().filter(({ line }) => options.has(line.split(' ')[1]!));
    // The README's quick start, the reporting example and the reference all name some.
    expect(lines.length).toBeGreaterThan(20);
    const unknown: string[] = [];
    for (const { page, line } of lines) {
      const declared = options.get(line.split(' ')[1]!)!;
      for (const [, flag] of line.matchAll(/(?:^|\s)--(?:no-)?([a-z][\w-]*)/g)) {
        if (!declared.has(flag!) && !BUILT_IN.has(flag!))
          unknown.push(`${page}: ${line}: --${flag}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('refuses the config file token-file under its internal name from flags and environment', async () => {
    const flag = await runCli(['status', `--${CONFIG_TOKEN_FILE}`, '/etc/passwd']);
    expect([flag.code, flag.stderr]).toEqual([
      2,
      `projmirror: unknown option: --${CONFIG_TOKEN_FILE}\n`,
    ]);
    const variable = variableOf(CONFIG_TOKEN_FILE);
    const env = await runCli(['status'], { env: { [variable]: '/etc/passwd' } });
    expect([env.code, env.stderr]).toEqual([
      2,
      `projmirror: unknown environment variable: ${variable}\n`,
    ]);
  });
});
