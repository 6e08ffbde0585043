import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'nodeclass-not-ready';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: EC2NodeClass private, SubnetsReady=False SubnetsNotFound for 2h3m (kubectl get -o yaml)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, EC2NodeClass: 2, Node: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime.iso).toBe('2025-06-10T09:41:27.000Z');
  });

  it('reports one error on the EC2NodeClass naming the failing sub-condition, not the derived ValidationSucceeded', () => {
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', namespace: null, name: 'private' });
    expect(f.message).toBe(
      'EC2NodeClass private has been Ready=False for 2h3m: SubnetsReady=False SubnetsNotFound "SubnetSelector did not match any Subnets". 1 NodePool (internal) uses it and cannot launch any node.',
    );
    expect(f.related).toEqual([{ kind: 'NodePool', name: 'internal' }]);
  });

  it('points at subnetSelectorTerms and cites the condition, the empty status.subnets and the NodePool', () => {
    const file = join(dir, 'karpenter.yaml');
    expect(anchorOf(f).pointer).toBe('/spec/subnetSelectorTerms');
    const [cond] = evidenceOf(f, 'EC2NodeClass', /^\/status\/conditions\/\d+$/);
    expect(rawValueAt(cond!)).toMatchObject({ type: 'SubnetsReady', status: 'False', reason: 'SubnetsNotFound' });
    expectSourceIs(cond!, file);
    expect(evidenceOf(f, 'EC2NodeClass', '/status/subnets')[0]!.value).toEqual([]);
    expect(rawValueAt(evidenceOf(f, 'EC2NodeClass', '/spec/subnetSelectorTerms')[0]!)).toEqual([
      { tags: { 'karpenter.sh/discovery': 'prod-usw2', network: 'private-isolated' } },
    ]);
    const [pool] = evidenceOf(f, 'NodePool');
    expect(rawValueAt(pool!)).toMatchObject({ type: 'NodeClassReady', status: 'False' });
    expect(f.evidence.some((e) => /ValidationSucceeded/.test(e.note ?? ''))).toBe(false);
  });

  it('fix: the aws CLI query of the selector tags and the check', () => {
    expect(f.fix).toContain('aws ec2 describe-subnets --filters Name=tag:karpenter.sh/discovery,Values=prod-usw2 Name=tag:network,Values=private-isolated');
    expect(f.fix).toContain('kubectl edit ec2nodeclass private   # spec.subnetSelectorTerms');
    expect(f.fix).toContain(`kubectl get ec2nodeclass private -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' prints True`);
  });
});

describe(`${RULE} — fires-validation: ValidationSucceeded=False CreateFleetAuthCheckFailed (-o json, events, no Nodes)`, () => {
  it('names the IAM failure, points at the condition (nothing in the spec to edit) and cites the transition event', async () => {
    const dir = caseDir(RULE, 'fires-validation');
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.message).toContain(
      'EC2NodeClass default has been Ready=False for 38m: ValidationSucceeded=False CreateFleetAuthCheckFailed "Controller isn\'t authorized to call ec2:CreateFleet"',
    );
    const pointer = anchorOf(f).pointer;
    expect(pointer).toMatch(/^\/status\/conditions\/\d+$/);
    expect(rawValueAt(f.evidence[0]!)).toMatchObject({ type: 'ValidationSucceeded', reason: 'CreateFleetAuthCheckFailed' });
    expect(f.evidence[0]!.path).toBe(pointer);
    expect(f.evidence.some((e) => typeof e.value === 'string' && e.value.startsWith('ValidationSucceeded: Status condition transitioned'))).toBe(true);
    expect(f.fix).toContain('update its IAM policy');
  });
});

describe(`${RULE} — near-miss`, () => {
  it('silent: a class created 90s ago (Unknown), a v1beta1 class without conditions, a Ready class', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ EC2NodeClass: 3, Node: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('the fresh class fires once it has been Unknown longer than minDuration', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')], { options: { [RULE]: { minDuration: '1m' } } });
    expect(r.findings.map((f) => f.object.name)).toEqual(['fresh']);
    expect(r.findings[0]!.message).toContain('Ready=Unknown AwaitingReconciliation');
    expect(r.findings[0]!.fix).toContain('the controller has not reconciled the node class');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'EC2NodeClass', name: 'private', pointer: '/spec/subnetSelectorTerms', severity: 'error' }],
      message: {
        name: 'private',
        text: 'EC2NodeClass private has been Ready=False for 2h3m: SubnetsReady=False SubnetsNotFound "SubnetSelector did not match any Subnets". 1 NodePool (internal) uses it and cannot launch any node.',
      },
    },
    {
      case: 'fires-validation',
      findings: [{ kind: 'EC2NodeClass', name: 'default', pointer: '/status/conditions/6', severity: 'error' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
