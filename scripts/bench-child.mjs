#!/usr/bin/env node
/**
 * Child process of scripts/bench.mjs. Each measurement runs in a fresh process so that peak RSS
 * (`process.resourceUsage().maxRSS`, which covers worker threads too) belongs to that measurement alone.
 *
 *   node scripts/bench-child.mjs floor json|yaml DIR
 *       The floor: parse every dump file sequentially with the fastest mature parser (JSON.parse of the whole
 *       file; js-yaml `load`), discarding each result. Prints one JSON line on stdout.
 *   node scripts/bench-child.mjs scan DIR [karpdoctor scan options…]
 *       Runs `karpdoctor scan DIR …` in this process (by importing bin/karpdoctor.js with a rewritten argv) and
 *       reports peak RSS on a marker line on stderr when the process exits, whatever the exit code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { constants as bufferConstants } from 'node:buffer';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MARKER = '@@karpdoctor-bench';

/** Dump files in a stable order (the order a person would list them), skipping logs and other text. */
function listFiles(dir, exts) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (exts.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  walk(dir);
  return out;
}

async function floor(format, dir) {
  // The reference parsers are loaded before the clock starts: the floor measures parsing, not start-up.
  const { load, loadAll } = format === 'yaml' ? await import('js-yaml') : {};
  const files = listFiles(dir, format === 'json' ? ['.json'] : ['.yaml', '.yml']);
  const skipped = [];
  let bytes = 0;
  let measured = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const f of files) {
    const size = fs.statSync(f).size;
    // readFileSync(…, 'utf8') cannot build a string this long, so the whole-file floor does not exist for it:
    // bench.mjs compares throughput instead.
    if (size > bufferConstants.MAX_STRING_LENGTH) {
      skipped.push({ path: path.relative(dir, f), bytes: size });
      continue;
    }
    const text = fs.readFileSync(f, 'utf8');
    if (format === 'json') JSON.parse(text);
    else {
      try {
        load(text);
      } catch (e) {
        // A stream of several documents (`---` between them) is still one file to parse.
        if (!/expected a single document/.test(e.message)) throw e;
        loadAll(text);
      }
    }
    bytes += size;
    measured++;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  process.stdout.write(JSON.stringify({ format, files: measured, bytes, ms, cpuMs, skipped, maxRSSKiB: process.resourceUsage().maxRSS }) + '\n');
}

async function scan(args) {
  const bin = fileURLToPath(new URL('../bin/karpdoctor.js', import.meta.url));
  if (!fs.existsSync(bin)) {
    process.stderr.write(`bench-child: ${bin} does not exist (has the CLI been written and built?)\n`);
    process.exit(127);
  }
  const t0 = performance.now();
  process.on('exit', (code) => {
    // fs.writeSync: the exit handler must not depend on the event loop, and stderr may be a file or a pipe.
    fs.writeSync(2, `\n${MARKER} ${JSON.stringify({ maxRSSKiB: process.resourceUsage().maxRSS, ms: performance.now() - t0, code })}\n`);
  });
  process.argv = [process.argv[0], bin, 'scan', ...args];
  await import(pathToFileURL(bin).href);
}

// bench.mjs imports this module for MARKER; only act when run as a program.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === 'floor') await floor(rest[0], rest[1]);
  else if (mode === 'scan') await scan(rest);
  else {
    process.stderr.write('usage: bench-child.mjs floor json|yaml DIR | scan DIR [options]\n');
    process.exit(2);
  }
}
