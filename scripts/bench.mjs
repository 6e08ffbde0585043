#!/usr/bin/env node
/**
 * Benchmark of `karpdoctor scan` on a synthetic dump at the Kubernetes scalability envelope, against the floor
 * of simply parsing the same files (see docs/performance.md).
 *
 *   npm run bench -- [--scale 1] [--format json,yaml] [--single-file] [--seed 1] [--keep] [--no-scan] [--write-docs]
 *   npm run bench -- --quick
 *
 * For each format it: generates the dump (scripts/gen-synthetic-dump.mjs; reused from .bench/<params>/ when a
 * previous run kept it), measures the floor in a child process (scripts/bench-child.mjs floor), runs the real
 * scan in another child process (scripts/bench-child.mjs scan, which imports bin/karpdoctor.js), and prints a
 * table, then what each phase of the scan cost (`scan --profile`). A full-scale run (or --write-docs) writes the
 * table into README.md and docs/performance.md between their bench markers, with the date, the commit and the machine.
 *
 * --quick (under a minute): scale 0.02, JSON only, the dump kept in .bench/; prints the ratio to the floor, each phase,
 * and names any rule or reader over its budget (scripts/bench-budget.mjs). It always exits 0 when it could measure: missed targets are printed as MISS, not failures. It exits 1
 * only when it could not measure (generator crash, bad arguments).
 *
 * Why child processes: peak RSS is per process, and a floor run would otherwise inflate the scan's figure (and
 * vice versa). Why the floor gets a 16 GB heap and the scan does not: the floor is a reference that must not
 * fail; the scan runs with Node's defaults, as `npx karpdoctor` would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION } from './gen-synthetic-dump.mjs';
import { MARKER } from './bench-child.mjs';
import { describeOverBudget, overBudget } from './bench-budget.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GEN = path.join(ROOT, 'scripts', 'gen-synthetic-dump.mjs');
const CHILD = path.join(ROOT, 'scripts', 'bench-child.mjs');
const FULL = { nodes: 5000, pods: 150000, events: 100000 };
const QUICK_SCALE = '0.02';
const DOCS = path.join(ROOT, 'docs', 'performance.md');
/** Both carry the table between the markers: the README's section and the performance page. */
const TABLES = [path.join(ROOT, 'README.md'), DOCS];
const DOCS_START = '<!-- bench:start -->';
const DOCS_END = '<!-- bench:end -->';

// Targets (issue 22, the harness's check at scale 1): JSON ≤ 1× its floor, YAML ≤ 0.67× js-yaml's, peak RSS ≤ 0.5× the
// dump's size on disk. Misses are printed, never failures: the bench measures, the harness judges.
const TARGET = { json: { ratio: 1.0, aim: 1.0 }, yaml: { ratio: 0.67, aim: 0.67 }, rss: 0.5, rssAim: 0.5 };

function parseCli() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '1' },
      format: { type: 'string', default: 'json,yaml' },
      'single-file': { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
      'no-scan': { type: 'boolean', default: false },
      'scan-node-options': { type: 'string', default: '' },
      quick: { type: 'boolean', default: false },
      'write-docs': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      [
        'usage: node scripts/bench.mjs [--scale 1] [--format json,yaml] [--single-file] [--seed 1] [--keep] [--no-scan] [--scan-node-options "--max-old-space-size=…"]',
        '  --scale N        multiplies 5000 nodes / 150000 pods / 100000 events (0.01 for a quick run)',
        '  --single-file    one `kubectl get … -A -o json|yaml` List instead of the cluster-info dump directory',
        '  --keep           keep the generated dumps in .bench/ (reused by later runs) and the scan reports',
        '  --no-scan        only generate and measure the floor',
        '  --quick          scale 0.02, JSON, dump kept: ratio, phases and budgets in under a minute',
        '  --write-docs     write the table into README.md and docs/performance.md (always done at scale 1)',
        '',
      ].join('\n'),
    );
    process.exit(0);
  }
  const quick = values.quick;
  if (quick) {
    values.scale = QUICK_SCALE;
    values.format = 'json';
  }
  const scale = Number(values.scale);
  if (!(scale > 0)) throw new Error('--scale must be a positive number');
  const formats = values.format
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const f of formats) if (f !== 'json' && f !== 'yaml') throw new Error(`unknown format ${f} (json, yaml)`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new Error('--seed must be a non-negative integer');
  return {
    scale,
    formats,
    singleFile: values['single-file'],
    seed,
    keep: values.keep || quick,
    quick,
    writeDocs: values['write-docs'] || (scale === 1 && !quick),
    noScan: values['no-scan'],
    scanNodeOptions: values['scan-node-options'].split(/\s+/).filter(Boolean),
  };
}

const sizes = (scale) => ({
  nodes: Math.max(1, Math.round(FULL.nodes * scale)),
  pods: Math.round(FULL.pods * scale),
  events: Math.round(FULL.events * scale),
});

/** Run a process to completion; resolve with its exit code (signals become 128+n like a shell). */
function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: opts.stdio ?? 'inherit', cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env });
    let stdout = '';
    if (child.stdout) child.stdout.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? 128 + (os.constants.signals[signal] ?? 0), signal, stdout }));
  });
}

/** The dump for these parameters, generated unless a complete copy (manifest written last) is cached. */
async function ensureDump(opts, format, singleFile, generatedNow) {
  const key = `scale-${opts.scale}_${format}${singleFile ? '_single' : ''}_seed-${opts.seed}_gen-${GENERATOR_VERSION}`;
  const dir = path.join(ROOT, '.bench', key);
  const dump = path.join(dir, 'dump');
  const manifestFile = path.join(dir, 'manifest.json');
  if (fs.existsSync(manifestFile) && fs.existsSync(dump)) {
    log(`reusing ${path.relative(ROOT, dump)}`);
    return { dir, dump, manifest: JSON.parse(fs.readFileSync(manifestFile, 'utf8')), reused: true };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const n = sizes(opts.scale);
  log(`generating ${format}${singleFile ? ' single-file' : ''} dump: ${n.nodes} nodes, ${n.pods} pods, ${n.events} events → ${path.relative(ROOT, dump)}`);
  const args = [
    GEN,
    '--out',
    dump,
    '--nodes',
    n.nodes,
    '--pods',
    n.pods,
    '--events',
    n.events,
    '--format',
    format,
    '--seed',
    opts.seed,
    '--manifest',
    manifestFile,
    ...(singleFile ? ['--single-file'] : []),
  ].map(String);
  const { code } = await run(process.execPath, args);
  if (code !== 0) throw new Error(`generator failed with exit code ${code}`);
  generatedNow.push(dir);
  return { dir, dump, manifest: JSON.parse(fs.readFileSync(manifestFile, 'utf8')), reused: false };
}

async function measureFloor(format, dump) {
  const { code, stdout } = await run(process.execPath, ['--max-old-space-size=16384', CHILD, 'floor', format, dump], { stdio: ['ignore', 'pipe', 'inherit'] });
  if (code !== 0) throw new Error(`floor measurement failed with exit code ${code}`);
  return JSON.parse(stdout.trim().split('\n').pop());
}

async function measureScan(opts, format, entry) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'karpdoctor-bench-'));
  const report = path.join(outDir, 'report.json');
  const stderrFile = path.join(outDir, 'stderr.txt');
  const stdoutFile = path.join(outDir, 'stdout.txt');
  const timeFile = path.join(outDir, 'time.txt');
  const errFd = fs.openSync(stderrFile, 'w');
  const outFd = fs.openSync(stdoutFile, 'w');
  // GNU time, when present, sees the whole process tree (child processes too, not only threads); the marker
  // line from bench-child works everywhere. The larger of the two is reported.
  const gnuTime = fs.existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', '%M %e', '-o', timeFile] : [];
  // --no-crd-download: a benchmark measures the scan, not a network round trip for Karpenter's CRDs.
  const argv = [
    ...gnuTime,
    process.execPath,
    ...opts.scanNodeOptions,
    CHILD,
    'scan',
    entry.dump,
    '--format',
    'json',
    '--output',
    report,
    '--profile',
    '--no-crd-download',
  ];
  const t0 = performance.now();
  const { code } = await run(argv[0], argv.slice(1), { stdio: ['ignore', outFd, errFd] });
  const wallMs = performance.now() - t0;
  fs.closeSync(errFd);
  fs.closeSync(outFd);
  const stderr = fs.readFileSync(stderrFile, 'utf8');
  const markerLine = stderr.split('\n').findLast((l) => l.startsWith(MARKER));
  const marker = markerLine ? JSON.parse(markerLine.slice(MARKER.length + 1)) : null;
  let gnuRssKiB = 0;
  if (gnuTime.length && fs.existsSync(timeFile)) {
    const m = /^(\d+) ([\d.]+)\s*$/m.exec(fs.readFileSync(timeFile, 'utf8'));
    if (m) gnuRssKiB = Number(m[1]);
  }
  const exit = marker?.code ?? code;
  const result = {
    ok: exit === 0 || exit === 1, // 1 = findings at or above --fail-on; still a completed scan
    exit,
    wallMs,
    maxRSSKiB: Math.max(marker?.maxRSSKiB ?? 0, gnuRssKiB) || null,
    stderrTail: stderr
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith(MARKER))
      .slice(-30),
    reportBytes: fs.existsSync(report) ? fs.statSync(report).size : 0,
    findings: null,
    loadedObjects: null,
    profile: null,
  };
  if (result.reportBytes && result.reportBytes < 256 * 2 ** 20) {
    try {
      const r = JSON.parse(fs.readFileSync(report, 'utf8'));
      const list = Array.isArray(r) ? r : Array.isArray(r.findings) ? r.findings : null;
      if (list) result.findings = list.length;
      if (r.profile) result.profile = r.profile;
      // If the report says how many objects it loaded, compare with what was generated (catches silent drops).
      const counts = r.snapshot?.counts;
      if (counts && typeof counts === 'object') result.loadedObjects = Object.values(counts).reduce((a, b) => a + (typeof b === 'number' ? b : 0), 0);
    } catch {
      /* not our concern here: the report format belongs to the CLI */
    }
  }
  if (opts.keep) {
    for (const f of ['report.json', 'stderr.txt', 'stdout.txt'])
      if (fs.existsSync(path.join(outDir, f))) fs.copyFileSync(path.join(outDir, f), path.join(entry.dir, `scan-${f}`));
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  return result;
}

// --- formatting ------------------------------------------------------------------------------------------
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const MB = 1e6;
const fmtBytes = (n) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / MB).toFixed(1)} MB`);
const fmtS = (ms) => `${(ms / 1000).toFixed(1)} s`;
const fmtRss = (kib) => (kib == null ? 'n/a' : fmtBytes(kib * 1024));
function verdict(value, target, aim) {
  if (value == null) return '';
  if (value > target) return `MISS (target ≤ ${target.toFixed(1)})`;
  if (value < aim) return `ok (below ${aim.toFixed(1)})`;
  return aim < target ? `ok (target ≤ ${target.toFixed(1)}; aim < ${aim.toFixed(1)})` : `ok (target ≤ ${target.toFixed(1)})`;
}

function printTable(opts, results) {
  const n = sizes(opts.scale);
  const cpu = os.cpus();
  const lines = [];
  lines.push('');
  lines.push(
    `karpdoctor bench: scale ${opts.scale} (${n.nodes} nodes, ${n.pods} pods, ${n.events} events), seed ${opts.seed}, ${opts.singleFile ? 'single-file List' : 'cluster-info dump directory'}`,
  );
  lines.push(`node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? 'unknown'}), ${fmtBytes(os.totalmem())} RAM`);
  const rows = [];
  const row = (label, f) => rows.push([label, ...results.map(f)]);
  row('', (r) => r.format.toUpperCase());
  row('dump on disk', (r) => `${fmtBytes(r.manifest.totalBytes)} in ${r.manifest.files.length} files`);
  row(
    'objects',
    (r) => `${r.manifest.objects} (${r.manifest.counts.Pod ?? 0} pods, ${r.manifest.counts.Node ?? 0} nodes, ${r.manifest.counts.Event ?? 0} events)`,
  );
  row('floor parser', (r) => (r.format === 'json' ? 'JSON.parse(readFileSync)' : 'js-yaml load(readFileSync)'));
  row('floor measured on', (r) => `${fmtBytes(r.floor.bytes)} in ${r.floor.files} files${r.floorNote ? ` ${r.floorNote}` : ''}`);
  row('floor throughput', (r) => `${(r.floor.bytes / MB / (r.floor.ms / 1000)).toFixed(1)} MB/s`);
  row('floor time', (r) => `${fmtS(r.floorMs)}${r.floorExtrapolated ? ' (extrapolated from MB/s)' : ''}`);
  row('floor peak RSS', (r) => fmtRss(r.floor.maxRSSKiB));
  if (!opts.noScan) {
    row('scan', (r) => (r.scan.ok ? `exit ${r.scan.exit}${r.scan.findings != null ? `, ${r.scan.findings} findings` : ''}` : `FAILED (exit ${r.scan.exit})`));
    row('objects in report', (r) =>
      r.scan.loadedObjects == null
        ? 'n/a'
        : `${r.scan.loadedObjects}${r.scan.loadedObjects === r.manifest.objects ? ' (all)' : ` (generated ${r.manifest.objects}: MISMATCH)`}`,
    );
    row('scan time', (r) => (r.scan.ok ? fmtS(r.scan.wallMs) : 'n/a'));
    row('scan throughput', (r) => (r.scan.ok ? `${(r.manifest.totalBytes / MB / (r.scan.wallMs / 1000)).toFixed(1)} MB/s` : 'n/a'));
    row('scan / floor (time)', (r) => {
      if (!r.scan.ok) return 'n/a';
      const ratio = r.scan.wallMs / r.floorMs;
      return `${ratio.toFixed(2)}  ${verdict(ratio, TARGET[r.format].ratio, TARGET[r.format].aim)}`;
    });
    row('scan peak RSS', (r) => (r.scan.ok || r.scan.maxRSSKiB ? fmtRss(r.scan.maxRSSKiB) : 'n/a'));
    row('scan RSS / dump size', (r) => {
      if (!r.scan.maxRSSKiB) return 'n/a';
      const ratio = (r.scan.maxRSSKiB * 1024) / r.manifest.totalBytes;
      return `${ratio.toFixed(2)}  ${verdict(ratio, TARGET.rss, TARGET.rssAim)}`;
    });
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  for (const r of rows)
    lines.push(
      r
        .map((cell, c) => String(cell).padEnd(widths[c]))
        .join('   ')
        .trimEnd(),
    );
  lines.push('');
  lines.push('floor = sequential whole-file parse of every dump file in one thread; scan = wall time of the whole');
  lines.push('`karpdoctor scan DIR --format json --output FILE --profile` process, start-up included.');
  if (opts.scale < 0.5) lines.push(`At scale ${opts.scale} start-up and the baseline RSS of a Node process dominate; the targets are meant for scale 1.`);
  for (const r of results) {
    if (r.floor.skipped.length)
      lines.push(
        `${r.format}: ${r.floor.skipped.map((s) => `${s.path} (${fmtBytes(s.bytes)})`).join(', ')} ${r.floor.skipped.length > 1 ? 'are' : 'is'} larger than V8's maximum string length; the floor time is extrapolated from the floor's MB/s over the files that fit${r.floorNote ? ' ' + r.floorNote : ''}.`,
      );
  }
  process.stdout.write(lines.join('\n') + '\n');
  for (const r of results) {
    if (opts.noScan) continue;
    if (r.scan.profile) process.stdout.write(`\n${profileSummary(r).join('\n')}\n`);
    else if (r.scan.stderrTail.length)
      process.stdout.write(`\n${r.format}: scan stderr (last ${r.scan.stderrTail.length} lines):\n${r.scan.stderrTail.map((l) => `  ${l}`).join('\n')}\n`);
  }
}

/** The ratio to the floor, each phase, and who is over budget, from the scan's own `--profile`. */
function profileSummary(r) {
  const p = r.scan.profile;
  const lines = [`${r.format}: where the scan went (scan --profile; start-up excluded)`];
  const cpuRatio = r.floor.cpuMs
    ? ` · CPU ${(p.cpuMs / r.floor.cpuMs).toFixed(2)}× (${fmtS(p.cpuMs)} of CPU over all threads / floor ${fmtS(r.floor.cpuMs)})`
    : '';
  lines.push(`  scan / floor: wall ${(r.scan.wallMs / r.floorMs).toFixed(2)}× (${fmtS(r.scan.wallMs)} / ${fmtS(r.floorMs)})${cpuRatio}`);
  for (const ph of p.phases)
    lines.push(
      `  ${ph.phase.padEnd(9)} ${fmtS(ph.ms).padStart(8)}  ${((ph.ms / p.wallMs) * 100).toFixed(1).padStart(5)} %  ${(ph.ms / r.floorMs).toFixed(2)}× floor  CPU ${fmtS(ph.cpuMs).padStart(7)}  heap ${fmtDelta(ph.heapUsedDeltaBytes)}  RSS ${fmtDelta(ph.rssDeltaBytes)}`,
    );
  const cpuOf = (x) => Math.round(x.cpuMs ?? x.ms);
  lines.push(
    `  rules: ${p.rules.ran} ran, ${fmtS(p.rules.cpuMs ?? p.rules.totalMs)} of CPU of their own; costliest ${p.rules.top
      .slice(0, 3)
      .map((x) => `${x.id} ${cpuOf(x)} ms`)
      .join(', ')}`,
  );
  if (p.views)
    lines.push(
      `  views (built once, for the rules): ${fmtS(p.views.cpuMs)} of CPU; costliest ${p.views.top
        .slice(0, 3)
        .map((x) => `${x.view} ${cpuOf(x)} ms`)
        .join(', ')}`,
    );
  lines.push(`  readers (all threads): ${p.readers.top.map((x) => `${x.reader} ${Math.round(x.ms)} ms`).join(', ')}`);
  const over = describeOverBudget(overBudget(p));
  lines.push(...(over.length ? over.map((l) => `  ${l}`) : ['  budgets: no rule or reader over its budget']));
  return lines;
}

const fmtDelta = (bytes) => `${bytes < 0 ? '-' : '+'}${fmtBytes(Math.abs(bytes))}`;

/** The table of README.md and docs/performance.md, between their markers: what was measured, on what, when. */
function writeDocs(opts, results) {
  const git = (args) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) ? ' with uncommitted changes' : '';
  const cpu = os.cpus();
  const n = sizes(opts.scale);
  const rows = [
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, commit ${commit}${dirty}: scale ${opts.scale} (${n.nodes} nodes, ${n.pods} pods, ${n.events} events), ${opts.singleFile ? 'single-file List' : 'cluster-info dump directory'}; ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown'}), ${fmtBytes(os.totalmem())} RAM, Node ${process.version}; load average ${os.loadavg()[0].toFixed(1)} when it finished.`,
    '',
    '| dump | floor | scan | scan / floor (wall) | scan / floor (CPU) | scan peak RSS (× dump size) | load · snapshot · rules · lines · report |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    if (!r.scan?.ok) continue;
    const p = r.scan.profile;
    const rss = r.scan.maxRSSKiB ? `${fmtRss(r.scan.maxRSSKiB)} (${((r.scan.maxRSSKiB * 1024) / r.manifest.totalBytes).toFixed(2)})` : 'n/a';
    const cpuRatio = p && r.floor.cpuMs ? (p.cpuMs / r.floor.cpuMs).toFixed(2) : 'n/a';
    const phases = p ? p.phases.map((ph) => fmtS(ph.ms)).join(' · ') : 'n/a';
    rows.push(
      `| ${r.format.toUpperCase()}, ${fmtBytes(r.manifest.totalBytes)} in ${r.manifest.files.length} files | ${fmtS(r.floorMs)} (${r.format === 'json' ? '`JSON.parse`' : 'js-yaml'}) | ${fmtS(r.scan.wallMs)} | ${(r.scan.wallMs / r.floorMs).toFixed(2)} | ${cpuRatio} | ${rss} | ${phases} |`,
    );
  }
  rows.push('', ...scaleNote(results));
  for (const file of TABLES) {
    const text = fs.readFileSync(file, 'utf8');
    const start = text.indexOf(DOCS_START);
    const end = text.indexOf(DOCS_END);
    if (start < 0 || end < start) {
      log(`${path.relative(ROOT, file)} has no ${DOCS_START} … ${DOCS_END} markers; table not written there`);
      continue;
    }
    fs.writeFileSync(file, `${text.slice(0, start + DOCS_START.length)}\n${rows.join('\n')}\n${text.slice(end)}`);
    log(`wrote the table into ${path.relative(ROOT, file)}`);
  }
}

/** The largest dump of the run, what it took, and how a fleet is scanned: written with the table so it never goes stale. */
function scaleNote(results) {
  const done = results.filter((r) => r.scan?.ok && r.scan.maxRSSKiB);
  if (!done.length) return [];
  const big = done.reduce((a, b) => (b.manifest.totalBytes > a.manifest.totalBytes ? b : a));
  const p = big.scan.profile;
  const NAMES = { load: 'load', snapshot: 'snapshot', rules: 'rules', lines: 'cited lines', report: 'report' };
  const phases = p
    ? `; of its ${fmtS(big.scan.wallMs)}, ${p.phases.map((ph) => `${NAMES[ph.phase] ?? ph.phase} ${fmtS(ph.ms)}`).join(', ')} (\`scan --profile\`)`
    : '';
  return [
    `**Scale.** Largest measured: the ${big.format.toUpperCase()} row, ${fmtBytes(big.manifest.totalBytes)} (${big.manifest.objects} objects), peak RSS ${fmtRss(big.scan.maxRSSKiB)}${phases}. A fleet: one process per cluster, JSON/SARIF merged downstream.`,
  ];
}

// --- main ------------------------------------------------------------------------------------------------
async function main() {
  const opts = parseCli();
  const generatedNow = [];
  const results = [];
  try {
    for (const format of opts.formats) {
      const entry = await ensureDump(opts, format, opts.singleFile, generatedNow);
      log(`${format}: measuring the floor`);
      let floor = await measureFloor(format, entry.dump);
      let floorNote = '';
      if (floor.files === 0) {
        // Everything is in one file too large for a string (full-scale --single-file). Measure the floor's
        // throughput on the same objects laid out as the cluster-info dump directory instead.
        log(`${format}: nothing fits in a string; measuring the floor on the directory layout of the same objects`);
        const ref = await ensureDump(opts, format, false, generatedNow);
        floor = { ...(await measureFloor(format, ref.dump)), skipped: floor.skipped };
        floorNote = '(directory layout of the same objects)';
      }
      const mbps = floor.bytes / floor.ms;
      const dumpBytes = entry.manifest.files.filter((f) => f.path.endsWith(format === 'json' ? '.json' : '.yaml')).reduce((s, f) => s + f.bytes, 0);
      const floorExtrapolated = floor.skipped.length > 0;
      const floorMs = floorExtrapolated ? dumpBytes / mbps : floor.ms;
      log(`${format}: floor ${fmtS(floor.ms)} over ${fmtBytes(floor.bytes)} (${(mbps / 1000).toFixed(1)} MB/s), peak RSS ${fmtRss(floor.maxRSSKiB)}`);
      let scan = null;
      if (!opts.noScan) {
        log(`${format}: running karpdoctor scan`);
        scan = await measureScan(opts, format, entry);
        log(`${format}: scan ${scan.ok ? 'finished' : 'FAILED'} (exit ${scan.exit}) in ${fmtS(scan.wallMs)}, peak RSS ${fmtRss(scan.maxRSSKiB)}`);
      }
      results.push({ format, manifest: entry.manifest, floor, floorMs, floorExtrapolated, floorNote, scan });
    }
    printTable(opts, results);
    if (opts.writeDocs && !opts.noScan) writeDocs(opts, results);
    const failed = results.filter((r) => r.scan && !r.scan.ok);
    if (failed.length) process.stdout.write(`\nscan FAILED for ${failed.map((r) => r.format).join(', ')} (see stderr above); exit code other than 0/1.\n`);
  } finally {
    if (!opts.keep) for (const dir of generatedNow) fs.rmSync(dir, { recursive: true, force: true });
    else if (generatedNow.length) log(`kept ${generatedNow.map((d) => path.relative(ROOT, d)).join(', ')}`);
  }
}

main().catch((e) => {
  process.stderr.write(`bench: ${e.message}\n`);
  process.exit(1);
});
