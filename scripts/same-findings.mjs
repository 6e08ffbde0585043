#!/usr/bin/env node
/**
 * A loader change must not change what a scan finds. This scans every fixture directory and the bench dumps in
 * .bench/ with a given build, once as an ordinary run and once with workers and ranges forced on even the smallest
 * input (so the worker protocol and the range readers are exercised where a plain run would not start them), and
 * writes each `--format json` report; `--compare` then diffs two such runs byte for byte.
 *
 *   node scripts/same-findings.mjs record OUT_DIR [--bin PATH/TO/bin/karpdoctor.js] [--no-bench]
 *   node scripts/same-findings.mjs compare BEFORE_DIR AFTER_DIR
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODES = {
  plain: {},
  // Two workers and a cut every few KiB: every file on disk goes through the pool, every List through ranges.
  forced: { KARPDOCTOR_JOBS: '2', KARPDOCTOR_SPLIT_ABOVE: '4096' },
};

function inputs(withBench) {
  const fixtures = path.join(ROOT, 'fixtures');
  const dirs = (d) =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(d, e.name))
      .sort();
  const out = [...dirs(fixtures), ...dirs(path.join(fixtures, 'rules'))];
  const bench = path.join(ROOT, '.bench');
  if (withBench && fs.existsSync(bench)) for (const d of dirs(bench)) if (fs.existsSync(path.join(d, 'dump'))) out.push(path.join(d, 'dump'));
  return out;
}

const nameOf = (input) => path.relative(ROOT, input).replace(/[/\\]/g, '__');

function record(outDir, bin, withBench) {
  fs.mkdirSync(outDir, { recursive: true });
  for (const input of inputs(withBench)) {
    for (const [mode, env] of Object.entries(MODES)) {
      const file = path.join(outDir, `${nameOf(input)}.${mode}.json`);
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [bin, 'scan', input, '--format', 'json', '--output', file, '--no-crd-download'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      fs.writeFileSync(`${file}.stderr`, r.stderr ?? '');
      process.stderr.write(`${mode.padEnd(6)} ${path.relative(ROOT, input)}: exit ${r.status} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  }
}

function compare(a, b) {
  const names = new Set([...fs.readdirSync(a), ...fs.readdirSync(b)]);
  let differ = 0;
  let clockOnly = 0;
  for (const n of [...names].sort()) {
    const pa = path.join(a, n);
    const pb = path.join(b, n);
    if (!fs.existsSync(pa) || !fs.existsSync(pb)) {
      process.stdout.write(`only in ${fs.existsSync(pa) ? a : b}: ${n}\n`);
      differ++;
    } else if (!fs.readFileSync(pa).equals(fs.readFileSync(pb))) {
      // A repository has no cluster time: its scan is judged at the wall clock, which differs between any two runs.
      if (withoutClock(pa) === withoutClock(pb)) clockOnly++;
      else {
        process.stdout.write(`differs: ${n}\n`);
        differ++;
      }
    }
  }
  process.stdout.write(`${names.size} files compared, ${differ} differ, ${clockOnly} only in the reference time of a scan without cluster time\n`);
  return differ ? 1 : 0;
}

const withoutClock = (file) => fs.readFileSync(file, 'utf8').replace(/^ *"referenceTime": "[^"]*",?$/gm, '');

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { bin: { type: 'string', default: path.join(ROOT, 'bin', 'karpdoctor.js') }, 'no-bench': { type: 'boolean', default: false } },
});
const [cmd, ...dirs] = positionals;
if (cmd === 'record' && dirs.length === 1) record(path.resolve(dirs[0]), path.resolve(values.bin), !values['no-bench']);
else if (cmd === 'compare' && dirs.length === 2) process.exitCode = compare(path.resolve(dirs[0]), path.resolve(dirs[1]));
else {
  process.stderr.write('usage: same-findings.mjs record OUT_DIR [--bin bin/karpdoctor.js] [--no-bench] | compare BEFORE AFTER\n');
  process.exitCode = 2;
}
