/**
 * Inputs for the CI reporters (SARIF, markdown, GitHub annotations): the real pipeline on a copy of the `ci-gate`
 * GitOps fixture, then a GateView put together by hand from its findings so that every case a reporter must render
 * is present exactly once — a field location, no location (live), an archive member, an in-source and an external
 * suppression, a baselined finding, an unused suppression and a stale baseline entry.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../../src/engine/findings.js';
import { fingerprintOf, type GateFinding, type GateView } from '../../src/engine/gate.js';
import type { Severity } from '../../src/engine/rule.js';
import type { ScanReport } from '../../src/reporters/report.js';
import { copyFixture, gateScan } from './gate.js';

export const ONLY = [
  'storageclass-immediate-binding',
  'pdb-blocks-eviction',
  'expire-without-termination-grace-period',
  'stateful-workload-exposed-to-interruption',
];

/** `,` and `:` in a path must be escaped in workflow-command properties and percent-encoded in SARIF URIs. */
export const ODD_FILE = 'apps/checkout/deploy,ment:v1.yaml';

export async function reporterInputs() {
  const dir = copyFixture('ci-gate');
  renameSync(join(dir, 'apps/checkout/deployment.yaml'), join(dir, ODD_FILE));
  const r = await gateScan([dir], { only: ONLY });
  const by = (id: string) => {
    const g = r.gate.findings.find((x) => x.finding.ruleId === id);
    if (!g) throw new Error(`fixture lost its ${id} finding`);
    return g;
  };
  const pdb = by('pdb-blocks-eviction');
  const expire = by('expire-without-termination-grace-period');
  const sts = by('stateful-workload-exposed-to-interruption');
  const sc = by('storageclass-immediate-binding');
  const nodePoolFile = expire.location!.fsPath!;

  // As read from a live cluster: no file anywhere.
  const live = relabel(sts.finding, { evidence: sts.finding.evidence.map((e) => ({ ...e, source: 'live' })) });
  // As read from an archive member: a display path only.
  const archived = relabel(pdb.finding, {
    object: { ...pdb.finding.object, name: 'api-archived' },
    evidence: pdb.finding.evidence.map((e) => ({ ...e, source: 'bundle.tar.gz!apps/pdb.yaml:7' })),
  });
  const gate: GateView = {
    findings: [
      pdb,
      { ...sts, location: null },
      gateFinding(live, '/spec/template/metadata/labels', null, 'error'),
      gateFinding(archived, '/spec/minAvailable', { source: 'bundle.tar.gz!apps/pdb.yaml', line: 13, column: 3, endLine: 13, endColumn: 18 }),
      {
        ...expire,
        suppression: {
          kind: 'inSource',
          justification: 'drains are bounded by the platform webhook',
          origin: 'annotation karpdoctor.io/ignore on NodePool general-purpose',
          location: { source: nodePoolFile, fsPath: nodePoolFile, line: 6, column: 5, endLine: 6, endColumn: 80 },
        },
      },
      {
        ...sc,
        suppression: {
          kind: 'external',
          justification: 'legacy class, removed in Q3',
          origin: '.karpdoctor.yaml:7',
          location: { source: join(dir, '.karpdoctor.yaml'), line: 7, column: 1 },
        },
      },
      {
        ...gateFinding(relabel(sc.finding, { object: { ...sc.finding.object, name: 'gp2' } }), '/volumeBindingMode', null),
        suppression: { kind: 'external', justification: 'accepted in the baseline', origin: 'baseline .karpdoctor-baseline.json' },
      },
    ],
    unusedSuppressions: [
      {
        rules: ['node-memory-pressure'],
        reason: 'memory is fine here',
        origin: 'annotation karpdoctor.io/ignore on NodePool general-purpose',
        location: { source: nodePoolFile, fsPath: nodePoolFile, line: 7, column: 5 },
      },
    ],
    staleBaseline: [
      {
        ruleId: 'pdb-blocks-eviction',
        object: { kind: 'PodDisruptionBudget', namespace: 'web', name: 'gone' },
        pointer: '/spec/minAvailable',
        fingerprint: 'f'.repeat(32),
      },
    ],
    baseline: '.karpdoctor-baseline.json',
    config: join(dir, '.karpdoctor.yaml'),
  };
  return { dir, scan: r, gate, report: reportOf(r.report, gate), pdb, live, archived };
}

/** The JSON contract holds the active findings only. */
export function reportOf(base: ScanReport, gate: GateView): ScanReport {
  const findings = gate.findings.filter((g) => !g.suppression).map((g) => g.finding);
  const summary: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) summary[f.severity]++;
  return { ...base, tool: { name: 'karpdoctor', version: '0.1.0' }, findings, summary };
}

function relabel(f: Finding, change: Partial<Finding>): Finding {
  return { ...f, ...change };
}

export function gateFinding(f: Finding, pointer: string, location: GateFinding['location'], severity?: Severity): GateFinding {
  const finding = severity ? { ...f, severity } : f;
  return { finding, pointer, location, fingerprint: fingerprintOf(finding, pointer) };
}
