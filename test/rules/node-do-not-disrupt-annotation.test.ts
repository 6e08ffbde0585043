import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-do-not-disrupt-annotation';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const A = 'ip-10-0-115-66.us-west-2.compute.internal';
const G = 'ip-10-0-160-90.us-west-2.compute.internal';

describe(`${RULE} — fires: kubectl get -o yaml Lists, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let fNode: Finding;
  let fPool: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    fNode = r.findings.find((f) => f.object.kind === 'Node')!;
    fPool = r.findings.find((f) => f.object.kind === 'NodePool')!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodeClaim: 3, NodePool: 2, Event: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:40:00.000Z' });
  });

  it('info on the hand-annotated Node and on the NodePool whose template carries it (its node is not reported again); not "false", not the node-group node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['info', { apiVersion: 'v1', kind: 'Node', namespace: null, name: A }],
      ['info', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'gpu' }],
    ]);
  });

  it('node: says what it blocks, what it does not stop, and for how long Karpenter has skipped it', () => {
    expect(fNode.message).toContain(`Node ${A} has karpenter.sh/do-not-disrupt: "true": Karpenter never consolidates, empties or drifts it`);
    expect(fNode.message).toContain('it does not stop expiry (expireAfter, forceful from v1.0), spot/health interruption, node repair or a manual delete');
    expect(fNode.message).toContain('Karpenter has skipped it for 3d19h (DisruptionBlocked). Expiry will still replace it in 22d21h.');
    const [ann] = evidenceOf(fNode, 'Node', '/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expectSourceIs(ann!, join(dir, 'nodes.yaml'));
    expect(rawValueAt(ann!)).toBe('true');
    const [ev] = evidenceOf(fNode, 'Event');
    expect(ev!.value).toContain('DisruptionBlocked: Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation (x877');
    expect(fNode.fix).toContain(`kubectl annotate node ${A} karpenter.sh/do-not-disrupt-`);
  });

  it('pool: names its nodes, expireAfter Never, and patches the template', () => {
    expect(fPool.message).toContain(`NodePool gpu puts karpenter.sh/do-not-disrupt: "true" on every node it creates (1 node now: ${G})`);
    expect(fPool.message).toContain('With expireAfter: Never these nodes stay until deleted by hand.');
    const [tmpl] = evidenceOf(fPool, 'NodePool', '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expectSourceIs(tmpl!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(tmpl!)).toBe('true');
    expect(fPool.fix).toContain(
      `kubectl patch nodepool gpu --type json -p '[{"op":"remove","path":"/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt"}]'`,
    );
    expect(fPool.fix).toContain(`kubectl annotate node ${G} karpenter.sh/do-not-disrupt-`);
  });
});

describe(`${RULE} — near-miss: annotations removed (one multi-document YAML)`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodePool: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — spec-only: a GitOps NodePool manifest`, () => {
  it('reports the template annotation with its file:line', async () => {
    const dir = caseDir(RULE, 'spec-only');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings.map((f) => f.object.name)).toEqual(['gpu']);
    expect(r.findings[0]!.message).toContain('(expireAfter 720h still replaces them)');
    const [tmpl] = evidenceOf(r.findings[0]!, 'NodePool');
    expect(tmpl!.path).toBe('/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(tmpl!.source).toBe(`${join(dir, 'nodepool-gpu.yaml')}:10`);
    expectSourceAtField(tmpl!, join(dir, 'nodepool-gpu.yaml'), 'karpenter.sh/do-not-disrupt: "true"');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-0-115-66.us-west-2.compute.internal', pointer: '/metadata/annotations/karpenter.sh~1do-not-disrupt', severity: 'info' },
        { kind: 'NodePool', name: 'gpu', pointer: '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt', severity: 'info' },
      ],
      message: {
        name: 'ip-10-0-115-66.us-west-2.compute.internal',
        text: 'Node ip-10-0-115-66.us-west-2.compute.internal has karpenter.sh/do-not-disrupt: "true": Karpenter never consolidates, empties or drifts it; it does not stop expiry (expireAfter, forceful from v1.0), spot/health interruption, node repair or a manual delete, and it does not protect the pods from being evicted when one of those happens. Karpenter has skipped it for 3d19h (DisruptionBlocked). Expiry will still replace it in 22d21h.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
