/**
 * The README's shell blocks as a test runs them: found by the heading above them, and rewritten
 * to act on a temporary root instead of the machine (each absolute system path under the root,
 * `npm install -g --prefix`, `systemd-sysusers --root`, `systemctl --root enable`, `install -g`
 * with the group's id from the root's /etc/group).
 */
import { readFileSync } from 'node:fs';

/** The README's text. */
export function readme(): string {
  return readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
}

/** The text of the README's `## heading`, up to the next heading of that level. */
export function readmeSection(heading: string): string {
  const text = readme();
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The `sh` blocks under the `## heading`, in order. */
export function shellBlocks(heading: string): string[] {
  const section = readmeSection(heading);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** Absolute paths of the system a README command may write to. */
const SYSTEM_PATH = /(^|[\s=])\/(etc|usr|var|run)\//g;

/**
 * One README command line as run into `$ROOT`: `sudo` dropped, system paths under the root, and
 * the tools that act on the running system told about the root instead. `systemctl enable
 * --now` becomes an offline `enable`: the test then starts the unit's command itself.
 */
export function intoRoot(line: string): string {
  let command = line.replace(/(^|\s)#.*$/, '').trim();
  if (command === '') return '';
  command = command.replace(/\bsudo\s+/g, '').replace(SYSTEM_PATH, '$1"$ROOT"/$2/');
  command = command.replace(/\bnpm install -g\b/, 'npm install -g --prefix "$ROOT/usr"');
  command = command.replace(/\bsystemd-sysusers\b/, 'systemd-sysusers --root="$ROOT"');
  command = command.replace(/\bsystemctl daemon-reload && /, '');
  command = command.replace(/\bsystemctl enable --now\b/, 'systemctl --root="$ROOT" enable');
  // install -g GROUP: the group as the root's /etc/group numbers it (the host has no such group).
  command = command.replace(
    /(\binstall\b.*\s-g\s+)([a-z_][a-z0-9_-]*)/,
    `$1"$(awk -F: '$$1 == "$2" { print $$3 }' "$ROOT"/etc/group)"`,
  );
  return command;
}

/** A whole block as one bash script into `$ROOT`, stopping at the first failing command. */
export function scriptIntoRoot(block: string): string {
  const lines = block
    .split('\n')
    .map(intoRoot)
    .filter((line) => line !== '');
  return ['set -euo pipefail', ...lines].join('\n');
}
