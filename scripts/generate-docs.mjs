#!/usr/bin/env node
// `npm run docs`: the pages generated from rule metadata — docs/rules/<id>.md and the README's catalog table linking to
// them — written from the built rules (src/reporters/rule-docs.ts); a page of a rule that no longer exists is removed.
// test/docs.test.ts regenerates them in memory and fails when the files drift.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
// From the build (npm run docs builds first), by URL so that the scripts' type check does not compile dist/ again.
const { RULES } = await import(new URL('dist/rules/index.js', root).href);
const { readmeWithCatalog, RULE_PAGES_DIR, rulePages } = await import(new URL('dist/reporters/rule-docs.js', root).href);
const at = (path) => new URL(path, root);
const changed = [];

function write(path, text) {
  let old;
  try {
    old = readFileSync(at(path), 'utf8');
  } catch {
    old = undefined;
  }
  if (old === text) return;
  writeFileSync(at(path), text);
  changed.push(path);
}

write('README.md', readmeWithCatalog(readFileSync(at('README.md'), 'utf8'), RULES));
const pages = rulePages(RULES);
mkdirSync(at(`${RULE_PAGES_DIR}/`), { recursive: true });
for (const [path, text] of pages) write(path, text);
for (const name of readdirSync(at(`${RULE_PAGES_DIR}/`))) {
  const path = `${RULE_PAGES_DIR}/${name}`;
  if (!pages.has(path)) {
    rmSync(at(path));
    changed.push(`${path} (removed)`);
  }
}
console.log(changed.length ? `updated: ${changed.join(', ')}` : 'docs already up to date');
