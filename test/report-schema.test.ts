/**
 * docs/report.schema.json is the JSON report's contract: the `--format json` output of every fixture must validate
 * against it. Every fixture means every scan target of fixtures/ — each case directory, each pasted ticket file — so
 * that a field a reporter starts to emit, or a shape only one input produces (records-only findings, ages, per-object
 * not-evaluated entries, a report of nothing loaded), fails here until the schema says it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../src/cli/errors.js';
import { scanCommand } from '../src/cli/scan.js';
import { FIXTURES } from './support/scan.js';

const ROOT = join(import.meta.dirname, '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'docs', 'report.schema.json'), 'utf8')) as { $id: string; properties: { schemaVersion: { const: number } } };
// validateFormats off: times are checked by the schema's own pattern; `format` stays as an annotation for readers.
const validate = new Ajv2020({ allErrors: true, strict: true, validateFormats: false }).compile(schema);

/**
 * Fixture sets that group cases, with the depth their cases sit at (fixtures/rules/<id>/<case>/); tickets are pasted
 * one file at a time, so each file is a target; every other directory of fixtures/ is one case, scanned whole.
 */
const GROUPS: Record<string, number> = { rules: 2, repos: 1, timeline: 1 };
const PER_FILE = 'tickets';

const isDir = (p: string) => statSync(p).isDirectory();
const children = (dir: string) => readdirSync(dir).map((n) => join(dir, n));

function filesUnder(p: string): string[] {
  return isDir(p) ? children(p).flatMap(filesUnder) : [p];
}

function targets(): string[] {
  const out: string[] = [];
  for (const top of children(FIXTURES).filter(isDir)) {
    const name = relative(FIXTURES, top);
    if (name === PER_FILE) out.push(...filesUnder(top).filter((f) => !f.endsWith(`${sep}README.md`)));
    else if (GROUPS[name] === undefined) out.push(top);
    else {
      let level = [top];
      for (let depth = 0; depth < GROUPS[name]; depth++) level = level.flatMap(children).filter(isDir);
      out.push(...level);
    }
  }
  return out.sort();
}

const TARGETS = targets();
// In-process the line locator's worker (compiled code only) cannot start; it finds the same lines in this thread.
process.env.KARPDOCTOR_JOBS = '0';
const out = mkdtempSync(join(tmpdir(), 'karpdoctor-schema-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** What `karpdoctor scan TARGET --format json -o FILE` writes (also when nothing could be loaded and it exits 2). */
async function jsonReport(target: string): Promise<{ report: unknown; nothingLoaded: boolean }> {
  let nothingLoaded = false;
  const file = join(out, 'report.json');
  rmSync(file, { force: true });
  // The one-line messages of a scan that loads nothing go to stderr; the report is what is checked here.
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await scanCommand([target], { format: 'json', output: file, crdDownload: false }, 'test');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    nothingLoaded = true;
  } finally {
    vi.restoreAllMocks();
  }
  return { report: JSON.parse(readFileSync(file, 'utf8')), nothingLoaded };
}

type Report = {
  snapshot: { karpenterVersion: string | null; ages?: unknown; skipped: Array<{ line?: number }> };
  findings: Array<{ recordsOnly?: unknown; related: Array<{ namespace?: string }>; evidence: Array<{ object: unknown; note?: string }> }>;
  notEvaluated: Array<{ object?: unknown }>;
};

/** The optional parts of the contract that the fixtures' reports showed: each must be exercised, or the test proves little. */
const seen = new Set<string>();
function note(report: Report, nothingLoaded: boolean): void {
  const add = (what: string, yes: boolean) => yes && seen.add(what);
  add('a report of nothing loaded', nothingLoaded);
  add('an unknown Karpenter version', report.snapshot.karpenterVersion === null);
  add('snapshot.ages', report.snapshot.ages !== undefined);
  add(
    'a skipped line',
    report.snapshot.skipped.some((s) => s.line !== undefined),
  );
  add(
    'findings.recordsOnly',
    report.findings.some((f) => f.recordsOnly),
  );
  add(
    'related.namespace',
    report.findings.some((f) => f.related.some((r) => r.namespace)),
  );
  add(
    'evidence.note',
    report.findings.some((f) => f.evidence.some((e) => e.note)),
  );
  add(
    'evidence without an object',
    report.findings.some((f) => f.evidence.some((e) => e.object === null)),
  );
  add(
    'notEvaluated.object',
    report.notEvaluated.some((n) => n.object),
  );
}

describe('docs/report.schema.json', () => {
  it("carries the report's schemaVersion in its $id and as the version it accepts", async () => {
    const report = (await jsonReport(join(FIXTURES, 'example-cluster'))).report as { schemaVersion: number };
    expect(schema.properties.schemaVersion.const).toBe(report.schemaVersion);
    expect(schema.$id).toMatch(new RegExp(`:schemaVersion:${report.schemaVersion}$`));
  });

  it('the targets cover every fixture file: nothing is left unscanned', () => {
    const covered = (f: string) => TARGETS.some((t) => f === t || f.startsWith(`${t}${sep}`));
    const readmes = (f: string) => f.endsWith(`${sep}README.md`) && !covered(f);
    expect(filesUnder(FIXTURES).filter((f) => !covered(f) && !readmes(f))).toEqual([]);
    expect(TARGETS.length).toBeGreaterThan(400);
  });

  it('is strict: a field it does not describe fails', async () => {
    const report = (await jsonReport(join(FIXTURES, 'example-cluster'))).report as { findings: Array<Record<string, unknown>> };
    expect(validate(report)).toBe(true);
    report.findings[0]!.fingerprint = 'abc';
    expect(validate(report)).toBe(false);
    delete report.findings[0]!.fingerprint;
    report.findings[0]!.change = 'introduced';
    expect(validate(report)).toBe(true);
    report.findings[0]!.change = 'new';
    expect(validate(report)).toBe(false);
  });

  it.each(TARGETS.map((t) => [relative(ROOT, t)]))('validates the JSON report of %s', async (target) => {
    const { report, nothingLoaded } = await jsonReport(join(ROOT, target));
    expect(validate(report) ? [] : validate.errors).toEqual([]);
    note(report as Report, nothingLoaded);
  });

  it('met every optional part of the contract in some fixture', () => {
    expect([...seen].sort()).toEqual(
      [
        'a report of nothing loaded',
        'an unknown Karpenter version',
        'snapshot.ages',
        'a skipped line',
        'findings.recordsOnly',
        'related.namespace',
        'evidence.note',
        'evidence without an object',
        'notEvaluated.object',
      ].sort(),
    );
  });
});
