/**
 * Every command of the CLI, in the order `--help` lists them. A command's module (its options and
 * what it does) is loaded only when the command line names it: `projmirror enqueue` starts without
 * the daemon, the simulator or the report's modules (README, "Startup").
 */
import type { ListedCommand } from '../command.js';

export const commands: ListedCommand[] = [
  {
    command: 'sync',
    describe: 'one full, consistent pass over every project, then exit',
    load: async () => (await import('./sync.js')).syncCommand,
  },
  {
    command: 'run',
    describe: 'the daemon: initial sync, realtime, budgeted polling, outbox pushing, reconcile',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    command: 'push',
    describe: 'send every pending outbox item, retrying transient failures for a while, then exit',
    load: async () => (await import('./push.js')).pushCommand,
  },
  {
    command: 'enqueue <op>',
    describe: 'add an outbox item locally, without network; prints its id and idempotency key',
    load: async () => (await import('./enqueue.js')).enqueueCommand,
  },
  {
    command: 'status',
    describe:
      'per project: task count, last consistent sync, staleness; quota; plan; outbox counts',
    load: async () => (await import('./status.js')).statusCommand,
  },
  {
    command: 'outbox <action> [id]',
    describe: 'manage outbox items: list, retry ID, drop ID, resolve ID --keep-local|--keep-remote',
    load: async () => (await import('./outbox.js')).outboxCommand,
  },
  {
    command: 'report',
    describe: 'project progress and overdue tasks from the mirror alone (--html: a page of charts)',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    command: 'export',
    describe: 'write reporting views as CSV, JSON or NDJSON files, or one view to standard output',
    load: async () => (await import('./export.js')).exportCommand,
  },
  {
    command: 'simulate',
    describe: 'serve the bundled simulator of the service until SIGTERM/SIGINT',
    load: async () => (await import('./simulate.js')).simulateCommand,
  },
  {
    command: 'demo',
    describe:
      'start the simulator with sample data, sync it into ./demo.sqlite, push edits, show queries',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    command: 'version',
    describe: 'print the version',
    load: async () => (await import('./version.js')).versionCommand,
  },
];
