#!/usr/bin/env node
/**
 * Whether two builds of karpdoctor report the same on the same inputs: a change meant to make a scan faster or smaller
 * must not change a byte of its findings. Runs `scan --format json` of each build (a checkout with dist/ built) on each
 * path (default: the bench's cached dumps and every fixture directory) and prints the paths whose reports differ.
 *
 *   node scripts/same-findings.mjs BEFORE_ROOT AFTER_ROOT [path…]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [before, after, ...given] = process.argv.slice(2);
if (!before || !after) {
  process.stderr.write('usage: node scripts/same-findings.mjs BEFORE_ROOT AFTER_ROOT [path…]\n');
  process.exit(2);
}

function defaultPaths() {
  const dirs = (d) =>
    fs.existsSync(d)
      ? fs
          .readdirSync(d, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => path.join(d, e.name))
      : [];
  const bench = dirs(path.join(ROOT, '.bench')).map((d) => path.join(d, 'dump'));
  const fixtures = dirs(path.join(ROOT, 'fixtures')).flatMap((d) => (d.endsWith(`${path.sep}rules`) ? dirs(d).flatMap(dirs) : [d]));
  return [...bench, ...fixtures];
}

/** Input without times of its own is judged at the moment of the scan, which differs between any two runs. */
const started = new Date().toISOString().slice(0, 10);
const CLOCK_TIME = new RegExp(`"referenceTime": ?"${started}T[^"]*"`);

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'karpdoctor-same-'));
function report(root, target, n) {
  const file = path.join(out, `${n}.json`);
  spawnSync(process.execPath, [path.join(root, 'bin', 'karpdoctor.js'), 'scan', target, '--format', 'json', '--output', file, '--no-crd-download'], {
    stdio: 'ignore',
  });
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').replace(CLOCK_TIME, '"referenceTime": "(the clock)"') : '(no report)';
}

let differ = 0;
const targets = given.length ? given : defaultPaths();
targets.forEach((target, i) => {
  if (report(before, target, `${i}-before`) !== report(after, target, `${i}-after`)) {
    differ++;
    process.stdout.write(`differs: ${target}\n`);
  }
});
process.stdout.write(`${targets.length - differ} of ${targets.length} reports the same\n`);
process.exitCode = differ ? 1 : 0;
