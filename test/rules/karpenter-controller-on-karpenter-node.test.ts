import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'karpenter-controller-on-karpenter-node';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const KARPENTER_NODE = 'ip-10-0-101-23.us-west-2.compute.internal';
const SYSTEM_NODE = 'ip-10-0-12-81.us-west-2.compute.internal';

describe(`${RULE} — fires: v1.2.1, Helm affinity replaced by an anti-affinity only, one replica on a Karpenter node`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, Pod: 2, Deployment: 1, NodePool: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
  });

  it('reports one error on the Deployment naming the pod and its node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    expect(f.message).toContain(
      `1 controller pod of 2 runs on Karpenter-managed nodes (kube-system/karpenter-6c9d8b7f4d-2xk9p on ${KARPENTER_NODE} (NodePool general))`,
    );
    expect(f.message).toContain('evict its own controller');
    expect(f.related).toEqual([
      { kind: 'Node', name: KARPENTER_NODE },
      { kind: 'NodePool', name: 'general' },
    ]);
  });

  it('points at the affinity (no required node affinity left) and cites pod, node label and version', () => {
    expect(anchorOf(f).pointer).toBe('/spec/template/spec/affinity');
    expect(f.evidence[0]!.note).toBe('no required node affinity: nothing keeps the pods off NodePool general');
    expect(rawValueAt(f.evidence[0]!)).toHaveProperty('podAntiAffinity');
    expect(f.evidence[0]!.source).toBe(`${join(dir, 'karpenter-deployment.yaml')}:1`);
    const [pod] = evidenceOf(f, 'Pod', '/spec/nodeName');
    expect(rawValueAt(pod!)).toBe(KARPENTER_NODE);
    expectSourceIs(pod!, join(dir, 'pods.yaml'));
    const [label] = evidenceOf(f, 'Node', '/metadata/labels/karpenter.sh~1nodepool');
    expect(rawValueAt(label!)).toBe('general');
    const nodes = join(dir, 'nodes.yaml');
    expect(label!.source).toBe(`${nodes}:${startLine(nodes, 'Node', KARPENTER_NODE)}`);
  });

  it('fix: the chart affinity, hosts for it, and a rollout restart', () => {
    expect(f.fix).toContain('- key: karpenter.sh/nodepool\n             operator: DoesNotExist');
    expect(f.fix).toContain('kubectl -n kube-system rollout restart deployment karpenter');
  });

  it('the same Deployment with both pods on the node group: a warning (the template still allows it)', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-ctl-'));
    try {
      await cp(dir, tmp, { recursive: true });
      const file = join(tmp, 'pods.yaml');
      const text = await readFile(file, 'utf8');
      expect(text).toContain(`nodeName: ${KARPENTER_NODE}`);
      await writeFile(file, text.replace(`nodeName: ${KARPENTER_NODE}`, `nodeName: ${SYSTEM_NODE}`));
      const w = await scanRule(RULE, [tmp]);
      expect(w.findings).toHaveLength(1);
      expect(w.findings[0]!.severity).toBe('warning');
      expect(w.findings[0]!.message).toContain(
        'its pod template may schedule onto Karpenter-managed nodes (NodePool general), though its pods run elsewhere today',
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — fires-manifests: GitOps repo, values exclude only the pre-v0.32 label`, () => {
  it('warns from the Deployment manifest alone, explaining the stale label', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.message).toContain(
      'its pod template may schedule onto Karpenter-managed nodes (NodePool general) — its affinity excludes only karpenter.sh/provisioner-name, the pre-v0.32 label',
    );
    expect(f.message).not.toContain('elsewhere today');
    expect(anchorOf(f).pointer).toBe('/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution');
    expect(rawValueAt(f.evidence[0]!)).toEqual({
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/provisioner-name', operator: 'DoesNotExist' }] }],
    });
    expect(f.fix).not.toContain('rollout restart');
  });
});

describe(`${RULE} — without NodePools in the snapshot`, () => {
  it('judges against the labels every Karpenter node carries: the stale-label Deployment alone still warns', async () => {
    const r = await scanRule(RULE, [join(caseDir(RULE, 'fires-manifests'), 'platform/karpenter/deployment.yaml')]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.message).toContain('may schedule onto Karpenter-managed nodes (nodes Karpenter launches)');
  });

  it('the chart default affinity alone stays silent', async () => {
    const r = await scanRule(RULE, [join(caseDir(RULE, 'near-miss'), 'karpenter-deployment.yaml')]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — fires-pinned: nodeSelector karpenter.sh/nodepool: system (-o json, no pods)`, () => {
  it('an error: the template can only run on Karpenter nodes; pointer at the nodeSelector entry', async () => {
    const dir = caseDir(RULE, 'fires-pinned');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('error');
    expect(f.message).toContain('its pod template can only schedule onto Karpenter-managed nodes (NodePool system): it selects karpenter.sh/nodepool');
    expect(anchorOf(f).pointer).toBe('/spec/template/spec/nodeSelector/karpenter.sh~1nodepool');
    expect(rawValueAt(f.evidence[0]!)).toBe('system');
    expectSourceIs(f.evidence[0]!, join(dir, 'deployments.json'));
    expect(f.fix).toMatch(/^1\. Remove the karpenter\.sh\/nodepool entry from the pod template's nodeSelector/);
  });
});

describe(`${RULE} — near-miss`, () => {
  it('silent: chart default affinity, pods on the managed node group', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 2, Deployment: 1, Node: 3 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'Deployment', namespace: 'kube-system', name: 'karpenter', pointer: '/spec/template/spec/affinity', severity: 'error' }],
      message: {
        name: 'karpenter',
        text: 'Karpenter controller Deployment kube-system/karpenter: 1 controller pod of 2 runs on Karpenter-managed nodes (kube-system/karpenter-6c9d8b7f4d-2xk9p on ip-10-0-101-23.us-west-2.compute.internal (NodePool general)). Karpenter can consolidate, drift, expire or repair such a node and evict its own controller, losing leadership mid-operation; with no replica left nothing provisions the node it needs to come back.',
      },
    },
    {
      case: 'fires-manifests',
      findings: [
        {
          kind: 'Deployment',
          namespace: 'kube-system',
          name: 'karpenter',
          pointer: '/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution',
          severity: 'warning',
        },
      ],
    },
    {
      case: 'fires-pinned',
      findings: [
        {
          kind: 'Deployment',
          namespace: 'kube-system',
          name: 'karpenter',
          pointer: '/spec/template/spec/nodeSelector/karpenter.sh~1nodepool',
          severity: 'error',
        },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
