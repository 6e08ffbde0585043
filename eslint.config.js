// Lint: typescript-eslint's recommended rules, plus the layer picture of CONTRIBUTING/README held by the machine:
// src/kube at the bottom; loaders → snapshot → engine → rules → reporters; cli (and collect beside it) on top.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import noMessagePatterns from './scripts/eslint-no-message-patterns.js';
import noTypeCycle from './scripts/eslint-no-type-cycle.js';

/** Each layer, bottom first, with the layers it must never import (everything above it). */
const LAYERS = ['kube', 'loaders', 'snapshot', 'engine', 'rules', 'reporters', 'collect', 'cli'];
const ABOVE = {
  kube: ['loaders', 'snapshot', 'engine', 'rules', 'reporters', 'collect', 'cli'],
  loaders: ['snapshot', 'engine', 'rules', 'reporters', 'collect', 'cli'],
  snapshot: ['engine', 'rules', 'reporters', 'collect', 'cli'],
  engine: ['rules', 'reporters', 'collect', 'cli'],
  rules: ['reporters', 'collect', 'cli'],
  reporters: ['collect', 'cli'],
  // collect sits beside cli: it may use every layer below, but not the commands.
  collect: ['cli'],
  cli: [],
};

const zones = LAYERS.flatMap((layer) =>
  ABOVE[layer].map((above) => ({
    target: `./src/${layer}`,
    from: `./src/${above}`,
    message: `src/${layer} is below src/${above}: imports go downward only (kube ← loaders ← snapshot ← engine ← rules ← reporters ← cli).`,
  })),
);

// The Node globals the scripts use (TypeScript checks the .ts files' names itself: no-undef is off for them).
/** @type {Record<string, 'readonly'>} */
const NODE_GLOBALS = Object.fromEntries(['process', 'console', 'Buffer', 'URL', 'performance', 'setTimeout', 'clearTimeout'].map((g) => [g, 'readonly']));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: NODE_GLOBALS },
    plugins: { 'import-x': importX, karpdoctor: { rules: { 'no-type-cycle': noTypeCycle, 'no-message-patterns': noMessagePatterns } } },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Sources import `./x.js` and mean `./x.ts` (NodeNext): resolve the way tsc does.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'karpdoctor/no-type-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones }],
      // Terminal colour codes are stripped on purpose (logs, kubectl output).
      'no-control-regex': 'off',
    },
  },
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
  // Karpenter's and the clouds' wordings live in the message catalog (src/snapshot/messages, src/kube/messages):
  // rules and readers ask it for signals (CONTRIBUTING.md "Messages").
  { files: ['src/rules/**/*.ts', 'src/loaders/readers/**/*.ts'], rules: { 'karpdoctor/no-message-patterns': 'error' } },
  {
    // Sources read inputs of any size; tests and scripts spread lists they built themselves.
    files: ['src/**/*.ts'],
    rules: {
      // A list as long as the input spread into arguments overflows the stack (src/kube/lists.ts).
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name=/^(max|min)$/] > SpreadElement",
          message: 'Math.max/min(...list) overflows the stack on long lists: use maxOf/minOf from src/kube/lists.ts.',
        },
        {
          selector: 'CallExpression[callee.property.name=/^(push|unshift)$/] > SpreadElement',
          message: 'push(...list) overflows the stack on long lists: use pushAll from src/kube/lists.ts, or a loop.',
        },
      ],
    },
  },
  // Tests walk untyped JSON output (SARIF, reports): `any` there is the honest type.
  // Tests match terminal output, where runs of spaces are the layout under test.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-regex-spaces': 'off' } },
  {
    // The synthetic-dump generator draws random numbers in if-else chains (a repeated `r.chance()` is a new draw)
    // and counts what it yields with comma expressions.
    files: ['scripts/gen-synthetic-dump.mjs'],
    rules: { 'no-dupe-else-if': 'off', '@typescript-eslint/no-unused-expressions': 'off' },
  },
);
