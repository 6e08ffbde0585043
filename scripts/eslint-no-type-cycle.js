/**
 * ESLint rule: no import cycle that runs through an `import type`. `import-x/no-cycle` skips type-only imports (they
 * vanish at run time), but a type cycle still ties two modules' designs together and hides a missing lower layer:
 * this rule reports each type-only import whose target imports (by any path, types included) the importing file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** @type {Map<string, Map<string, string[]>>} import graph per source root: file → imported files */
const graphs = new Map();

/** @param {string} root */
function graphOf(root) {
  let graph = graphs.get(root);
  if (graph) return graph;
  graph = new Map();
  for (const rel of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts')) continue;
    const file = join(root, rel);
    graph.set(file, importsOf(file, readFileSync(file, 'utf8')));
  }
  graphs.set(root, graph);
  return graph;
}

/**
 * @param {string} file
 * @param {string} text
 * @returns {string[]} the files it imports, values and types alike
 */
function importsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out = [];
  for (const st of source.statements) {
    if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const spec = st.moduleSpecifier.text;
    if (!spec.startsWith('.')) continue;
    out.push(resolveTs(file, spec));
  }
  // `import('./x.js').T` in a type position.
  for (const m of text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)) out.push(resolveTs(file, m[1]));
  return out;
}

/** @param {any} node */
function declarationSource(node) {
  const isDecl = node.type === 'ImportDeclaration' || node.type === 'ExportAllDeclaration' || node.type === 'ExportNamedDeclaration';
  const value = isDecl ? node.source?.value : undefined;
  return typeof value === 'string' && value.startsWith('.') ? value : undefined;
}

/** @param {any} node */
function isTypeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specifiers = node.specifiers ?? [];
  return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

/** `./x.js` from a .ts file means `./x.ts` (NodeNext). */
function resolveTs(from, source) {
  return resolve(dirname(from), source).replace(/\.js$/, '.ts');
}

/** A path from `start` to `goal` in the graph, or undefined. */
function pathBetween(graph, start, goal) {
  const previous = new Map([[start, '']]);
  const queue = [start];
  while (queue.length) {
    const at = queue.shift();
    if (at === goal) {
      const path = [];
      for (let p = at; p; p = previous.get(p)) path.unshift(p);
      return path;
    }
    for (const next of graph.get(at) ?? []) {
      if (!previous.has(next)) {
        previous.set(next, at);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'Disallow import cycles that pass through type-only imports' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
    messages: { cycle: 'Type-only import cycle: {{path}}. Move the shared type to the lower module (or to src/kube).' },
  },
  create(context) {
    const root = resolve(context.cwd, context.options[0]?.root ?? 'src');
    const file = context.physicalFilename;
    if (!file.startsWith(root + '/')) return {};
    const check = (node) => {
      const source = declarationSource(node);
      if (!source || !isTypeOnly(node)) return;
      const graph = graphOf(root);
      const target = resolveTs(file, source);
      const back = pathBetween(graph, target, file);
      if (!back) return;
      const short = (p) => p.slice(root.length + 1);
      context.report({ node, messageId: 'cycle', data: { path: [file, ...back].map(short).join(' → ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
