/**
 * Every command of the CLI, in the order `--help` lists them. A command's module (its options and
 * what it does) is loaded only when the command line names it: `projmirror enqueue` starts without
 * the daemon, the simulator or the report's modules (docs/configuration.md, "Startup").
 */
import type { CommandBody, ListedCommand } from '../command.js';

/** A command as listed, its module (which exports its `body`) loaded by `load`. */
function listed(
  command: string,
  describe: string,
  module: () => Promise<{ body: CommandBody }>,
): ListedCommand {
  return { command, describe, load: async () => (await module()).body };
}

export const commands: ListedCommand[] = [
  listed(
    'sync',
    'one full, consistent pass over every project, then exit',
    () => import('./sync.js'),
  ),
  listed(
    'run',
    'the daemon: initial sync, realtime, budgeted polling, outbox pushing, reconcile',
    () => import('./run.js'),
  ),
  listed(
    'push',
    'send every pending outbox item, retrying transient failures for a while, then exit',
    () => import('./push.js'),
  ),
  listed(
    'enqueue <op>',
    'add an outbox item locally, without network; prints its id and idempotency key',
    () => import('./enqueue.js'),
  ),
  listed(
    'status',
    'per project: task count, last consistent sync, staleness; quota; plan; outbox counts',
    () => import('./status.js'),
  ),
  listed(
    'outbox <action> [id]',
    'manage outbox items: list, retry ID, drop ID, resolve ID --keep-local|--keep-remote',
    () => import('./outbox.js'),
  ),
  listed(
    'report',
    'project progress and overdue tasks from the mirror alone (--html: a page of charts)',
    () => import('./report.js'),
  ),
  listed(
    'export',
    'write reporting views as CSV, JSON or NDJSON files, or one view to standard output',
    () => import('./export.js'),
  ),
  listed(
    'changes',
    'print what changed in the mirror after a cursor, one JSON object per line (--follow: keep printing)',
    () => import('./changes.js'),
  ),
  listed(
    'simulate',
    'serve the bundled simulator of the service until SIGTERM/SIGINT',
    () => import('./simulate.js'),
  ),
  listed(
    'demo',
    'start the simulator with sample data, sync it into ./demo.sqlite, push edits, show queries',
    () => import('./demo.js'),
  ),
  listed('version', 'print the version', () => import('./version.js')),
];
