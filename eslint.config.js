// Lint rules, including the dependency direction of the source layout (see README "Architecture").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

const layers = [
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
  'cli',
];

/** What each folder of src/ may import, besides itself. */
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
  daemon: ['domain', 'store', 'remote', 'budget', 'mirror', 'outbox', 'realtime'],
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
  ],
};

const zones = Object.entries(allowed).flatMap(([layer, may]) =>
  layers
    .filter((other) => other !== layer && !may.includes(other))
    .map((other) => ({
      target: `./src/${layer}`,
      from: `./src/${other}`,
      message: `src/${layer} must not import src/${other} (see the layout in README).`,
    })),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-console': 'off',
    },
  },
);
