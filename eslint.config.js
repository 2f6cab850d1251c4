// Lint rules, including the dependency direction of the source layout (see docs/architecture.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * What each folder of src/ may import, besides itself. The store thread's entry
 * (`src/store/thread/thread-entry.ts`) is in src/store, and src/store imports only src/domain:
 * so no file outside src/store (and the domain every folder shares) runs on the store thread.
 */
const allowed = {
  domain: [],
  store: ['domain'],
  remote: ['domain'],
  budget: ['domain'],
  realtime: ['domain'],
  sim: ['domain'],
  mirror: ['domain', 'store', 'budget'],
  outbox: ['domain', 'store', 'budget'],
  report: ['domain', 'store'],
  tokens: ['domain', 'budget'],
  daemon: ['domain', 'store', 'remote', 'budget', 'mirror', 'outbox', 'realtime', 'tokens'],
  cli: [
    'domain',
    'store',
    'remote',
    'budget',
    'mirror',
    'outbox',
    'realtime',
    'sim',
    'report',
    'daemon',
    'tokens',
  ],
};

/**
 * One config block per layer: an import of a folder the layer may not use is an error. ESLint's
 * own rule matches the import text, so sibling folders are written as `../<layer>/...` (and any
 * deeper relative path ending in `/<layer>/...`).
 */
const layers = Object.keys(allowed);

/**
 * What only the store may import of itself: the connection and its engines. Everything else holds
 * the mirror as a `MirrorHandle` (`store/handle.ts`) and passes it to the store (issue 23).
 */
const connectionMessage =
  'only src/store sees a connection; hold a MirrorHandle (store/handle.ts).';
const storeInternals = [
  {
    group: [
      '**/store/db.js',
      '**/store/sqlite-connection.js',
      '**/store/postgres/pg-connection.js',
    ],
    message: connectionMessage,
  },
  { group: ['**/store/handle.js'], importNames: ['connectionOf'], message: connectionMessage },
  {
    group: ['**/store/database.js'],
    importNames: ['Db', 'SqliteDb', 'openDatabase', 'migrate'],
    message: connectionMessage,
  },
];

/**
 * The engines on the main thread, and the report layer, ask the store only through its port
 * (`store/port.ts`): what runs on the store thread is the store's, out of their reach.
 */
const ENGINES = ['mirror', 'outbox', 'realtime', 'budget', 'tokens', 'remote', 'report'];
const portOnly = [
  {
    group: ['**/store/*', '!**/store/port.js', '**/store/*/**'],
    message:
      'an engine asks the store only through its port (store/port.ts): see docs/architecture.md.',
  },
];

/**
 * The CLI's commands ask the store through the same port, on an inline store that `store/open.ts`
 * opens; of that file they import only the functions that open one (no connection, no handle).
 */
const cliPortOnly = [
  {
    group: ['**/store/*', '!**/store/port.js', '!**/store/open.js', '**/store/*/**'],
    message:
      'a command asks the store only through its port (store/port.ts), opened by store/open.ts: see docs/architecture.md.',
  },
  {
    group: ['**/store/open.js'],
    allowImportNames: [
      'openStore',
      'openEmptyStore',
      'openReportStore',
      'mirrorMayExist',
      'MirrorLocation',
    ],
    message:
      'a command opens the mirror as a store (openStore, openReportStore), never as a connection or a MirrorHandle: see docs/architecture.md.',
  },
];

const layerRules = Object.entries(allowed).map(([layer, may]) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: layers
          .filter((other) => other !== layer && !may.includes(other))
          .map((other) => ({
            group: [`**/${other}/*`, `**/${other}`],
            message: `src/${layer} must not import src/${other} (see docs/architecture.md).`,
          }))
          .filter((pattern) => !(ENGINES.includes(layer) && pattern.group[0] === '**/store/*'))
          .concat(layer === 'store' ? [] : storeInternals)
          .concat(ENGINES.includes(layer) && may.includes('store') ? portOnly : [])
          .concat(layer === 'cli' ? cliPortOnly : []),
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...layerRules,
  {
    // Nothing waits on a database by blocking a thread (issue 23; docs/operations.md "The daemon
    // never waits on its database"): the store is asynchronous, with no Atomics.wait bridge.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'Atomics', message: 'no thread blocks on another: use the asynchronous store.' },
        {
          name: 'SharedArrayBuffer',
          message: 'no thread blocks on another: use the asynchronous store.',
        },
      ],
    },
  },
  {
    // The store's answers are promises (issue 23): one not awaited is a statement that may run
    // after its transaction, or an error nobody sees.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
);
