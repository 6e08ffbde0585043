/**
 * Drift impact as a platform team sees it on a pull request: `karpdoctor scan REPO --against DUMP` on the shop-prod
 * dump and three pull requests (fixtures/changes-drift/README.md holds the hand computation of each timeline).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const CLUSTER = 'fixtures/changes-drift/cluster';

interface Finding {
  ruleId: string;
  severity: string;
  change: string;
  message: string;
  evidence: Array<{ object?: { kind: string; name: string }; path?: string; source?: string }>;
  replacement?: {
    batches: Array<{ index: number; earliestStart: string; end: string; allowed: number | null; nodes: string[] }>;
    blocked: Array<{ node: string; blockers: string[] }>;
    finish: string | null;
    stalled: { remaining: string[] } | null;
  };
}

function scan(repo: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'scan', `fixtures/changes-drift/${repo}`, '--against', CLUSTER, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function drift(repo: string): { status: number | null; finding: Finding; referenceTime: string } {
  const r = scan(repo, '--format', 'json');
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout) as { findings: Finding[]; snapshot: { referenceTime: string } };
  // The timeline is part of the contract: docs/report.schema.json describes `replacement`.
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  const found = report.findings.filter((f) => f.ruleId === 'change-drifts-nodes');
  expect(found).toHaveLength(1);
  return { status: r.status, finding: found[0]!, referenceTime: report.snapshot.referenceTime };
}

const short = (n: string) => n.split('.')[0];
const schema = JSON.parse(readFileSync(join(ROOT, 'docs/report.schema.json'), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: true, validateFormats: false }).compile(schema);

describe('scan REPO --against DUMP: the nodes a pull request drifts and their replacement', () => {
  it('an AMI alias bump: six NodeClaims drift, two batches of ceil(20% × 6) = 2 from the reference time, two held', () => {
    const { status, finding, referenceTime } = drift('ami-bump');
    expect(status).toBe(0);
    expect(finding).toMatchObject({ severity: 'warning', change: 'introduced' });
    const batches = finding.replacement!.batches;
    expect(batches.map((b) => [b.index, b.allowed, b.nodes.map(short)])).toEqual([
      [1, 2, ['ip-10-20-101-230', 'ip-10-20-33-17']],
      [2, 2, ['ip-10-20-35-201', 'ip-10-20-70-142']],
    ]);
    expect(batches[0]!.earliestStart).toBe(referenceTime);
    expect(Date.parse(batches[1]!.earliestStart) - Date.parse(referenceTime)).toBe(10 * 60_000);
    expect(Date.parse(finding.replacement!.finish!) - Date.parse(referenceTime)).toBe(20 * 60_000);
    expect(finding.replacement!.blocked.map((b) => short(b.node))).toEqual(['ip-10-20-61-88', 'ip-10-20-97-5']);
    // Both sides: the repository's file for the changed field, the dump for the NodeClaims it drifts.
    expect(finding.evidence.find((e) => e.path === '/spec/amiSelectorTerms')!.source).toMatch(
      /^fixtures\/changes-drift\/ami-bump\/clusters\/shop-prod\/karpenter\/ec2nodeclass-default\.yaml:\d+$/,
    );
    expect(finding.evidence.filter((e) => e.object?.kind === 'NodeClaim').map((e) => e.source)).toEqual(
      Array.from({ length: 6 }, () => expect.stringMatching(/^fixtures\/changes-drift\/cluster\/karpenter-and-nodes\.json:\d+$/)),
    );
  });

  it('a zone removed: the two NodeClaims in it drift; one replaced, one held by its PDB', () => {
    const { finding } = drift('requirements');
    expect(finding.message).toContain('drifted (requirements: 2)');
    expect(finding.replacement!.batches.map((b) => b.nodes.map(short))).toEqual([['ip-10-20-101-230']]);
    expect(finding.replacement!.blocked).toEqual([
      { node: 'ip-10-20-97-5.eu-west-1.compute.internal', blockers: ['PDB shop/orders-db allows 0 evictions of shop/orders-db-0'] },
    ]);
  });

  it('a budget of 0 for Drifted: an error, the scan fails, and the report says replacement cannot finish', () => {
    const { status, finding } = drift('budget-zero');
    expect(status).toBe(1);
    expect(finding).toMatchObject({ severity: 'error', change: 'introduced', replacement: { batches: [], finish: null } });
    expect(finding.replacement!.stalled!.remaining).toHaveLength(4);
    const table = scan('budget-zero');
    expect(table.stdout).toContain('ERROR change-drifts-nodes  EC2NodeClass default');
    expect(table.stdout).toContain('cannot finish: the budgets allow 0');
  });
});
