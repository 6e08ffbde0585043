/**
 * `scan --profile` on a fixture, through the built binary: the cost of each phase, rule and reader on stderr, and the
 * same as `profile` in the JSON report, in the shape docs/report.schema.json gives it. Figures are not asserted (they
 * vary by run and machine); that they are there, complete and consistent, is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScanProfile } from '../src/reporters/profile.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const FIXTURE = join(ROOT, 'fixtures', 'example-cluster');
const out = mkdtempSync(join(tmpdir(), 'karpdoctor-profile-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const validate = new Ajv2020({ allErrors: true, strict: true, validateFormats: false }).compile(
  JSON.parse(readFileSync(join(ROOT, 'docs', 'report.schema.json'), 'utf8')) as object,
);

function scan(flag: string) {
  const file = join(out, `report${flag}.json`);
  const r = spawnSync(
    process.execPath,
    [BIN, 'scan', FIXTURE, flag, '--format', 'json', '--output', file, '--no-crd-download', '--now', '2024-11-05T14:30:00Z'],
    {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
  return { code: r.status, stderr: r.stderr, report: JSON.parse(readFileSync(file, 'utf8')) as { profile?: ScanProfile } };
}

describe('scan --profile', () => {
  const { code, stderr, report } = scan('--profile');

  it('completes the scan as without it (findings exit 1) and puts a profile the schema accepts in the JSON report', () => {
    expect(code).toBe(1);
    expect(validate(report)).toBe(true);
    expect(report.profile).toBeDefined();
  });

  it('has every phase once, in order, each with time, CPU and memory', () => {
    const p = report.profile!;
    expect(p.phases.map((ph) => ph.phase)).toEqual(['load', 'snapshot', 'rules', 'lines', 'report']);
    for (const ph of p.phases) {
      expect(ph.ms).toBeGreaterThanOrEqual(0);
      expect(ph.peakRssBytes).toBeGreaterThan(0);
      expect(Number.isInteger(ph.heapUsedDeltaBytes)).toBe(true);
    }
    expect(p.peakRssBytes).toBeGreaterThanOrEqual(Math.max(...p.phases.map((ph) => ph.peakRssBytes)));
  });

  it('lists the costliest rules (at most ten, costliest first, shares of the rules phase) and how many ran', () => {
    const { rules } = report.profile!;
    expect(rules.ran).toBeGreaterThan(10);
    expect(rules.top).toHaveLength(10);
    const ms = rules.top.map((r) => r.ms);
    expect(ms).toEqual([...ms].sort((a, b) => b - a));
    expect(rules.top.reduce((s, r) => s + r.share, 0)).toBeLessThanOrEqual(1.000001);
    expect(rules.top.every((r) => r.cpuMs >= 0)).toBe(true);
  });

  it('charges the views of the snapshot to themselves: rules and views together are the rules phase, not counted twice', () => {
    const { rules, views, phases } = report.profile!;
    const names = views.top.map((v) => v.view);
    // Many rules read the events of an object: building that index is no one rule's work.
    expect(names).toContain('eventsByInvolved');
    expect(views.top.every((v) => v.builds >= 1 && v.ms >= 0 && v.cpuMs >= 0)).toBe(true);
    const rulesPhase = phases.find((p) => p.phase === 'rules')!.ms;
    expect(rules.totalMs + views.totalMs).toBeLessThanOrEqual(rulesPhase + phases.find((p) => p.phase === 'snapshot')!.ms + 1);
  });

  it('charges the readers that read the fixture, by file and bytes', () => {
    const { readers } = report.profile!;
    const names = readers.top.map((r) => r.reader);
    expect(names).toContain('json');
    expect(readers.top.every((r) => r.files >= 1 && r.bytes > 0 && Number.isInteger(r.heapUsedDeltaBytes))).toBe(true);
    expect(readers.top.length).toBeLessThanOrEqual(10);
  });

  it('prints the same on stderr: phases, then the rules and readers', () => {
    for (const phase of ['load', 'snapshot', 'rules', 'lines', 'report', 'render']) expect(stderr).toMatch(new RegExp(`^${phase}\\s+\\d+ ms`, 'm'));
    expect(stderr).toMatch(/^rules: \d+ ran in \d+ ms \(CPU \d+ ms\) of their own; costliest:$/m);
    expect(stderr).toMatch(/^views: built in \d+ ms \(CPU \d+ ms\), each once, for the rules that ask; costliest:$/m);
    expect(stderr).toMatch(/^readers: \d+ ms over all threads; costliest:$/m);
    expect(stderr).toMatch(/^ {2}eventsByInvolved +\d+ ms +[\d.]+ % +CPU +\d+ ms +heap/m);
    expect(stderr).toContain(`  ${report.profile!.rules.top[0]!.id}`);
  });

  it('--timing, its older name, prints the same on stderr and leaves the report as it was', () => {
    const timing = scan('--timing');
    expect(timing.report).not.toHaveProperty('profile');
    expect(timing.stderr).toMatch(/^rules: \d+ ran/m);
    expect(timing.stderr).toMatch(/^load\s+\d+ ms/m);
  });

  it('without either flag the report has no profile', () => {
    const plain = spawnSync(process.execPath, [BIN, 'scan', FIXTURE, '--format', 'json', '--no-crd-download', '--now', '2024-11-05T14:30:00Z'], {
      encoding: 'utf8',
    });
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('profile');
    expect(plain.stderr).not.toMatch(/costliest/);
  });
});
