import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'nodepool-limits-reached';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: NodePool batch at cpu 64 of 64, two Job pods Pending with Karpenter's limit event (v1.5.0)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, Pod: 3, Node: 5, Event: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.5.0');
  });

  it('reports one warning on NodePool batch (general has room), naming the reached limit and the pods', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'batch' });
    expect(f.message).toContain('NodePool batch has reached its limits (cpu 64 of 64)');
    expect(f.message).toContain('while 2 pods it could host are Pending (etl/report-builder-29162340-x7k2p, etl/report-builder-29162340-m4q9z)');
    expect(f.message).toContain('"Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=batch)"');
    expect(f.related.map((x) => x.name)).toEqual(['report-builder-29162340-x7k2p', 'report-builder-29162340-m4q9z']);
  });

  it('points at spec.limits.cpu and cites limit, status.resources, events and pods from their files', () => {
    expect(anchorOf(f).pointer).toBe('/spec/limits/cpu');
    const file = join(dir, 'karpenter.yaml');
    const [limit] = evidenceOf(f, 'NodePool', '/spec/limits/cpu');
    expect(rawValueAt(limit!)).toBe('64');
    expectSourceIs(limit!, file);
    expect(rawValueAt(evidenceOf(f, 'NodePool', '/status/resources/cpu')[0]!)).toBe('64');
    expect(evidenceOf(f, 'Event')).toHaveLength(2);
    const [pod] = evidenceOf(f, 'Pod', '/status/phase');
    expectSourceIs(pod!, join(dir, 'pods.yaml'));
  });

  it('fix: a higher cpu limit, or an overflow pool with a lower weight', () => {
    expect(f.fix).toContain('kubectl edit nodepool batch\n   spec:\n     limits:\n       cpu: "96"');
    expect(f.fix).toContain('lower spec.weight than batch (10)');
  });
});

describe(`${RULE} — fires-events-only: cpu 60 of 64 but Karpenter says every instance type exceeds it (v1.2 wording, -o json)`, () => {
  it('reports from the event, pointing at spec.limits', async () => {
    const dir = caseDir(RULE, 'fires-events-only');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.message).toContain('NodePool batch is too close to its limits for any instance type it could launch (cpu 60 of 64, memory 230Gi of 256Gi)');
    expect(f.message).toContain('exceed limits for nodepool: "batch"');
    expect(anchorOf(f).pointer).toBe('/spec/limits');
    expect(rawValueAt(f.evidence[0]!)).toEqual({ cpu: '64', memory: '256Gi' });
    expectSourceIs(f.evidence[0]!, join(dir, 'karpenter.json'));
    expect(f.fix).toContain('cpu: "96"\n       memory: 384Gi');
  });
});

describe(`${RULE} — near-miss`, () => {
  it('silent: batch is at its limit but the Pending pod does not tolerate its taint', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, Pod: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'batch', pointer: '/spec/limits/cpu', severity: 'warning' }],
      message: {
        name: 'batch',
        text: 'NodePool batch has reached its limits (cpu 64 of 64), so Karpenter launches no node for it while 2 pods it could host are Pending (etl/report-builder-29162340-x7k2p, etl/report-builder-29162340-m4q9z); Karpenter says: "Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=batch)".',
      },
    },
    {
      case: 'fires-events-only',
      findings: [{ kind: 'NodePool', name: 'batch', pointer: '/spec/limits', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
