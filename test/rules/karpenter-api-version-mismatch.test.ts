import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine, rawValueAt } from './fixture-helpers.js';

const RULE = 'karpenter-api-version-mismatch';

describe(`${RULE} — fires from CRDs (controller v1.2.0, CRD manifests of karpenter-crd 0.37.0)`, () => {
  const dir = caseDir(RULE, 'fires-crds');
  it('reports each CRD that does not serve v1, with the release it came from', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => f.object.name).sort()).toEqual(['ec2nodeclasses.karpenter.k8s.aws', 'nodeclaims.karpenter.sh', 'nodepools.karpenter.sh']);
    const f = r.findings.find((x) => x.object.name === 'nodepools.karpenter.sh')!;
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: null, name: 'nodepools.karpenter.sh' });
    expect(f.message).toContain('CRD nodepools.karpenter.sh serves v1beta1, but Karpenter v1.2.0 uses NodePool v1');
    expect(f.message).toContain('comes from release 0.37.0, the controller runs v1.2.0');
    const [versions] = evidenceOf(f, 'CustomResourceDefinition', '/spec/versions');
    // `kubectl get crd -o yaml` (with status) is cluster state: evidence cites where the object starts.
    expectSourceIs(versions!, join(dir, 'crds.yaml'));
    expect(rawValueAt(versions!)).toEqual(versions!.value);
    expect(evidenceOf(f, 'Deployment')).toHaveLength(1);
    expect(f.fix).toContain('helm upgrade --install karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version 1.2.0');
  });
});

describe(`${RULE} — fires from logs alone, every generation`, () => {
  it('v1.1: the CRDs still convert through the webhook the controller no longer serves', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    // A bare log file names no pod: the finding is on the CRD the records name, not on a guessed Deployment.
    expect(f.object).toEqual({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: null, name: 'nodepools.karpenter.sh' });
    expect(f.message).toContain('The Karpenter controller (neither its Deployment nor its pods are in the input) and its CRDs disagree');
    expect(f.message).toContain('the CRD conversion webhook fails (NodePool)');
    expect(f.fix).toContain('--version <controller version> -n <namespace of the karpenter release>');
    expect(f.message).toContain('Seen in the controller logs only');
    expect(f.evidence).toHaveLength(3);
    for (const e of f.evidence) expect(logLine(e.source)).toContain('conversion webhook for karpenter.sh/v1beta1, Kind=NodePool failed');
  });
  it('a kubectl logs prompt names the controller pod: the finding is on its Deployment, in its namespace', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-named-pod')]);
    expect(r.findings.map((f) => f.object)).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'autoscaling', name: 'karpenter' }]);
    const f = r.findings[0]!;
    expect(f.message).toContain(
      'The Karpenter controller and its CRDs disagree — the CRD conversion webhook fails (NodePool); the CRD conversion webhook fails (NodeClaim).',
    );
    expect(f.fix).toContain('--version <controller version> -n autoscaling (the main');
  });
  it('v0.32–v0.36 JSON: no matches for kind NodeClaim', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.35')])).findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    expect(f.message).toContain('The Karpenter controller and its CRDs disagree');
    expect(f.message).toContain('the API server does not serve the version the controller asks for (NodeClaim)');
    expect(f.fix).toContain('-n kube-system');
  });
  it('≤ v0.31 console: no matches for kind Machine', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.31')])).findings[0]!;
    expect(f.message).toContain('(Machine)');
    expect(f.evidence).toHaveLength(2);
  });
});

describe(`${RULE} — near-miss: matching CRDs, one webhook error while the pods rolled`, () => {
  it('stays silent; occurrences=1 would report the one error', async () => {
    const dir = caseDir(RULE, 'near-miss');
    expect((await scanRule(RULE, [dir])).findings).toEqual([]);
    const one = await scanRule(RULE, [dir], { options: { [RULE]: { occurrences: 1 } } });
    expect(one.findings).toHaveLength(1);
    expect(one.findings[0]!.object.kind).toBe('Deployment');
  });
});

describe(`${RULE} — missing: NodePools and NodeClaims only`, () => {
  it('is not evaluated and says how to collect the controller and its logs', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['ControllerLogs', 'Event', 'KarpenterController'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-crds',
      findings: [
        { kind: 'CustomResourceDefinition', name: 'ec2nodeclasses.karpenter.k8s.aws', pointer: '/spec/versions', severity: 'error' },
        { kind: 'CustomResourceDefinition', name: 'nodeclaims.karpenter.sh', pointer: '/spec/versions', severity: 'error' },
        { kind: 'CustomResourceDefinition', name: 'nodepools.karpenter.sh', pointer: '/spec/versions', severity: 'error' },
      ],
      message: {
        name: 'ec2nodeclasses.karpenter.k8s.aws',
        text: 'The Karpenter controller and its CRDs disagree — CRD ec2nodeclasses.karpenter.k8s.aws serves v1beta1, but Karpenter v1.2.0 uses EC2NodeClass v1; CRD ec2nodeclasses.karpenter.k8s.aws comes from release 0.37.0, the controller runs v1.2.0. Until they match the controller cannot read or write its objects: nothing is provisioned or disrupted.',
      },
    },
    {
      case: 'fires-logs-v0.31',
      findings: [{ kind: 'CustomResourceDefinition', name: 'machines.karpenter.sh', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-named-pod',
      findings: [{ kind: 'Deployment', namespace: 'autoscaling', name: 'karpenter', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.35',
      findings: [{ kind: 'Deployment', namespace: 'kube-system', name: 'karpenter', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'CustomResourceDefinition', name: 'nodepools.karpenter.sh', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
