#!/usr/bin/env node
// Regenerates the README rule catalog from rule metadata (the test in test/cli.e2e.test.ts fails when it drifts).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const catalog = execFileSync(process.execPath, [new URL('bin/karpdoctor.js', root).pathname, 'rules', '--format', 'markdown'], { encoding: 'utf8' }).trim();
const readmePath = new URL('README.md', root);
const readme = readFileSync(readmePath, 'utf8');
const next = readme.replace(/<!-- catalog:start -->[\s\S]*?<!-- catalog:end -->/, `<!-- catalog:start -->\n${catalog}\n<!-- catalog:end -->`);
writeFileSync(readmePath, next);
console.log(next === readme ? 'README catalog already up to date' : 'README catalog updated');
