/**
 * The README's shell blocks as a test runs them (found by `shellBlocks` of test/docs/pages.ts),
 * rewritten to act on a temporary root instead of the machine (each absolute system path under
 * the root, `npm install -g --prefix`, `systemd-sysusers --root`, `systemctl --root enable`,
 * `install -g` with the group's id from the root's /etc/group).
 */

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
