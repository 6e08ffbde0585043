// Dead code: files, exports and dependencies nothing uses (`npm run deadcode`). Entry points are the CLI, the parse
// worker (started by URL, not imported), the tests and the scripts; knip finds vitest's and ESLint's configs itself.
/** @type {import('knip').KnipConfig} */
export default {
  entry: ['src/cli/main.ts', 'src/loaders/parse-worker.ts', 'test/**/*.test.ts', 'scripts/*.mjs'],
  project: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.{js,mjs}'],
  // A type that appears in an exported signature may stay exported: callers name it.
  ignoreExportsUsedInFile: { interface: true, type: true },
  // Loaded by path through createRequire in the SARIF test, which knip cannot follow.
  ignoreDependencies: ['@microsoft/sarif-multitool'],
  // System tools the tests call (named pipes, a test certificate).
  ignoreBinaries: ['mkfifo', 'openssl'],
  // The vocabulary of well-known label, annotation and taint names is kept whole, used yet or not.
  ignore: ['src/kube/well-known.ts'],
};
