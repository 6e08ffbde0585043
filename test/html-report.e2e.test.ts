/**
 * `--format html` as a user runs it: the built CLI writing `-o report.html` (and to stdout), on the mixed-incidents dump
 * and on the dump crafted with markup in its names and messages.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePage, select } from './support/html.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const CRDS = 'fixtures/rules/karpenter-object-rejected/release/v1.2.1/pkg/apis/crds/';

function scan(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'scan', '--crds', CRDS, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 << 20,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('karpdoctor scan --format html', () => {
  it('writes one page to -o FILE, the same page it prints without -o, and exits 1 on errors like every format', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-html-'));
    const out = join(dir, 'report.html');
    const toFile = scan(['fixtures/mixed-incidents', '--format', 'html', '-o', out]);
    const html = readFileSync(out, 'utf8');
    rmSync(dir, { recursive: true, force: true });
    expect([toFile.code, toFile.stdout, toFile.stderr]).toEqual([1, '', '']);
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    const els = parsePage(html);
    expect(select(els, 'article', { class: 'finding' })).toHaveLength(13);
    expect(select(els, 'g', { class: 'node' })).toHaveLength(11);
    expect(select(els, 'output', { id: 'finding-count' })[0]!.text).toBe('13 of 13 findings');
    expect(select(els, 'g', { 'data-node': 'ip-10-20-52-18.us-west-2.compute.internal' })[0]!.attrs['data-blocker']).toBe('do-not-disrupt');
    const printed = scan(['fixtures/mixed-incidents', '--format', 'html']);
    expect(printed.code).toBe(1);
    expect(printed.stdout).toBe(html);
  });

  it('shows a hostile dump as text: no element, attribute or script from the input', () => {
    const r = scan(['fixtures/hostile-markup', '--format', 'html']);
    expect(r.code).toBe(1);
    expect(r.stdout.match(/<script/gi)).toHaveLength(2);
    expect(r.stdout).not.toMatch(/<(img|iframe|marquee|svg onload)/i);
    const els = parsePage(r.stdout);
    expect(select(els, 'script').map((s) => s.attrs.type ?? 'js')).toEqual(['application/json', 'js']);
    expect(els.flatMap((e) => Object.keys(e.attrs)).filter((a) => /^on/i.test(a))).toEqual([]);
    expect(select(els, 'g', { 'data-node': "<script>alert('node')</script>" })).toHaveLength(1);
  });
});
