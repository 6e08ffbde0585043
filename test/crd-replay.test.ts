/**
 * Karpenter's CRD validation suites, replayed in spirit (issue 21 item 3): for each validation rule of the NodePool,
 * NodeClaim and EC2NodeClass CRDs (`fixtures/crd-replay/crds.yaml`, restated), an object it admits and one it refuses.
 * A rule that errors while it is evaluated (a `Gt` without `values`, `int('a')`) refuses the object, as the API
 * server does: "<error> evaluating rule: <message>".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { validate, type Schema } from '../src/snapshot/crd/schema.js';
import { anchorOf } from '../src/engine/findings.js';
import { FIXTURES, scan } from './support/scan.js';

interface Crd {
  spec: { names: { kind: string }; versions: Array<{ schema: { openAPIV3Schema: Schema } }> };
}
const schemas = new Map(
  (jsYaml.loadAll(readFileSync(join(FIXTURES, 'crd-replay', 'crds.yaml'), 'utf8')) as Crd[]).map((c) => [
    c.spec.names.kind,
    c.spec.versions[0]!.schema.openAPIV3Schema,
  ]),
);

type Spec = Record<string, unknown>;
const req = (key: string, operator: string, values?: string[], extra: Spec = {}) => ({ key, operator, ...(values ? { values } : {}), ...extra });

const nodePool = (requirements: Spec[] = [req('karpenter.sh/capacity-type', 'In', ['spot'])], over: { labels?: Spec; ref?: Spec; budgets?: Spec[] } = {}) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'replay' },
  spec: {
    ...(over.budgets ? { disruption: { consolidateAfter: '1m', budgets: over.budgets } } : {}),
    template: {
      ...(over.labels ? { metadata: { labels: over.labels } } : {}),
      spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default', ...over.ref }, requirements },
    },
  },
});
const nodeClaim = (requirements: Spec[], name = 'default') => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'replay-x7k2p' },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name }, requirements },
});
const nodeClass = (over: Spec = {}) => ({
  apiVersion: 'karpenter.k8s.aws/v1',
  kind: 'EC2NodeClass',
  metadata: { name: 'replay' },
  spec: {
    role: 'KarpenterNodeRole-replay',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'replay' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'replay' } }],
    ...over,
  },
});

/** The API server's answer: nothing when admitted, else `field: detail` per violation. */
function answer(o: { kind: string } & Spec): string[] {
  const v = validate(o as Record<string, unknown>, schemas.get(o.kind)!);
  expect(v.unjudged).toEqual([]);
  return v.violations.map((x) => `${x.field}: ${x.detail}`);
}

const REQS = 'spec.template.spec.requirements';
const GT_MSG = "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value";

describe('NodePool requirements', () => {
  it("'In' must have values", () => {
    expect(answer(nodePool([req('karpenter.k8s.aws/instance-family', 'In', ['m7i'])]))).toEqual([]);
    expect(answer(nodePool([req('karpenter.k8s.aws/instance-family', 'In', [])]))).toEqual([
      `${REQS}: Invalid value: "array": requirements with operator 'In' must have a value defined`,
    ]);
  });

  it("'In' without values at all errors while evaluated: refused, with the evaluation error", () => {
    expect(answer(nodePool([req('karpenter.k8s.aws/instance-family', 'In')]))).toEqual([
      `${REQS}: Invalid value: "array": no such key: values evaluating rule: requirements with operator 'In' must have a value defined`,
      // `x.values.size()` is reached for In only: the minValues rule short-circuits on has(x.minValues).
    ]);
  });

  for (const op of ['Gt', 'Lt', 'Gte', 'Lte']) {
    it(`${op}: one non-negative integer admitted; two values, a negative one, none or a word refused`, () => {
      expect(answer(nodePool([req('karpenter.k8s.aws/instance-cpu', op, ['8'])]))).toEqual([]);
      expect(answer(nodePool([req('karpenter.k8s.aws/instance-cpu', op, ['4', '8'])]))).toEqual([`${REQS}: Invalid value: "array": ${GT_MSG}`]);
      expect(answer(nodePool([req('karpenter.k8s.aws/instance-cpu', op, ['-1'])]))).toEqual([`${REQS}: Invalid value: "array": ${GT_MSG}`]);
      expect(answer(nodePool([req('karpenter.k8s.aws/instance-cpu', op)]))).toEqual([
        `${REQS}: Invalid value: "array": no such key: values evaluating rule: ${GT_MSG}`,
      ]);
      expect(answer(nodePool([req('karpenter.k8s.aws/instance-cpu', op, ['a'])]))).toEqual([
        `${REQS}: Invalid value: "array": strconv.ParseInt: parsing "a": invalid syntax evaluating rule: ${GT_MSG}`,
      ]);
    });
  }

  it('the evaluation error is cited at the requirement that causes it, among valid ones', () => {
    const v = validate(nodePool([req('kubernetes.io/arch', 'In', ['arm64']), req('karpenter.k8s.aws/instance-memory', 'Gte')]), schemas.get('NodePool')!);
    expect(v.violations.map((x) => x.pointer)).toEqual(['/spec/template/spec/requirements/1']);
  });

  it('minValues needs at least that many values', () => {
    expect(answer(nodePool([req('karpenter.k8s.aws/instance-family', 'In', ['m7i', 'm6i'], { minValues: 2 })]))).toEqual([]);
    expect(answer(nodePool([req('karpenter.k8s.aws/instance-family', 'In', ['m7i'], { minValues: 2 })]))).toEqual([
      `${REQS}: Invalid value: "array": requirements with 'minValues' must have at least that many values specified in the 'values' field`,
    ]);
  });

  it('Exists and DoesNotExist need no values', () => {
    expect(answer(nodePool([req('karpenter.k8s.aws/instance-gpu-count', 'DoesNotExist'), req('topology.kubernetes.io/zone', 'Exists')]))).toEqual([]);
  });
});

describe('NodePool template, nodeClassRef and budgets', () => {
  it('restricted labels', () => {
    expect(answer(nodePool(undefined, { labels: { team: 'search', 'kops.k8s.io/instancegroup': 'nodes' } }))).toEqual([]);
    expect(answer(nodePool(undefined, { labels: { 'karpenter.sh/nodepool': 'other' } }))).toEqual([
      'spec.template.metadata.labels: Invalid value: "object": label "karpenter.sh/nodepool" is restricted',
    ]);
    expect(answer(nodePool(undefined, { labels: { 'kubernetes.io/hostname': 'pinned' } }))).toEqual([
      'spec.template.metadata.labels: Invalid value: "object": label "kubernetes.io/hostname" is restricted',
    ]);
    expect(answer(nodePool(undefined, { labels: { 'node.k8s.io/flavour': 'x' } }))).toEqual([
      'spec.template.metadata.labels: Invalid value: "object": label domain "k8s.io" is restricted',
    ]);
  });

  it('nodeClassRef fields may not be empty', () => {
    for (const f of ['group', 'kind', 'name']) {
      expect(answer(nodePool(undefined, { ref: { [f]: '' } }))).toEqual([
        `spec.template.spec.nodeClassRef.${f}: Invalid value: "string": ${f} may not be empty`,
      ]);
    }
  });

  it("a budget's schedule and duration go together", () => {
    expect(answer(nodePool(undefined, { budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }, { nodes: '10%' }] }))).toEqual([]);
    expect(answer(nodePool(undefined, { budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri' }] }))).toEqual([
      `spec.disruption.budgets: Invalid value: "array": 'schedule' must be set with 'duration'`,
    ]);
  });
});

describe('NodeClaim', () => {
  it('requirements: the same rules, the same evaluation errors', () => {
    expect(answer(nodeClaim([req('karpenter.k8s.aws/instance-cpu', 'Lt', ['33'])]))).toEqual([]);
    expect(answer(nodeClaim([req('karpenter.k8s.aws/instance-cpu', 'Lt')]))).toEqual([
      `spec.requirements: Invalid value: "array": no such key: values evaluating rule: ${GT_MSG}`,
    ]);
    expect(answer(nodeClaim([req('node.kubernetes.io/instance-type', 'In', [])]))).toEqual([
      `spec.requirements: Invalid value: "array": requirements with operator 'In' must have a value defined`,
    ]);
  });

  it('nodeClassRef name may not be empty', () => {
    expect(answer(nodeClaim([], ''))).toEqual(['spec.nodeClassRef.name: Invalid value: "string": name may not be empty']);
  });
});

describe('EC2NodeClass', () => {
  it('exactly one of role and instanceProfile', () => {
    expect(answer(nodeClass({ role: undefined, instanceProfile: 'KarpenterNodeProfile-replay' }))).toEqual([]);
    expect(answer(nodeClass({ instanceProfile: 'KarpenterNodeProfile-replay' }))).toEqual([
      `spec: Invalid value: "object": must specify exactly one of ['role', 'instanceProfile']`,
    ]);
  });

  it('amiFamily is required without an alias term', () => {
    expect(answer(nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0a1b2c3d4e5f60718' }] }))).toEqual([]);
    expect(answer(nodeClass({ amiSelectorTerms: [{ id: 'ami-0a1b2c3d4e5f60718' }] }))).toEqual([
      'spec: Invalid value: "object": must specify amiFamily if amiSelectorTerms does not contain an alias',
    ]);
  });

  it('AMI selector terms: an alias of the right form, alone, and every term says something', () => {
    expect(answer(nodeClass({ amiSelectorTerms: [{ alias: 'bottlerocket@v1.26.2' }] }))).toEqual([]);
    expect(answer(nodeClass({ amiSelectorTerms: [{ alias: 'al2023' }] }))).toEqual([
      `spec.amiSelectorTerms[0].alias: Invalid value: "string": 'alias' is improperly formatted, must match the format 'family@version'`,
    ]);
    expect(answer(nodeClass({ amiSelectorTerms: [{ alias: 'al2023@latest', id: 'ami-0a1b2c3d4e5f60718' }] }))).toEqual([
      `spec.amiSelectorTerms: Invalid value: "array": 'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms`,
    ]);
    expect(answer(nodeClass({ amiFamily: 'AL2023', amiSelectorTerms: [{}] }))).toEqual([
      `spec.amiSelectorTerms: Invalid value: "array": expected at least one, got none, ['tags', 'id', 'name', 'alias']`,
    ]);
  });

  it('subnet and security group selector terms', () => {
    expect(answer(nodeClass({ subnetSelectorTerms: [{ id: 'subnet-0f1e2d3c4b5a69788' }] }))).toEqual([]);
    expect(answer(nodeClass({ subnetSelectorTerms: [] }))).toEqual([`spec.subnetSelectorTerms: Invalid value: "array": subnetSelectorTerms cannot be empty`]);
    expect(answer(nodeClass({ subnetSelectorTerms: [{}] }))).toEqual([
      `spec.subnetSelectorTerms: Invalid value: "array": expected at least one, got none, ['tags', 'id']`,
    ]);
    expect(answer(nodeClass({ securityGroupSelectorTerms: [] }))).toEqual([
      `spec.securityGroupSelectorTerms: Invalid value: "array": securityGroupSelectorTerms cannot be empty`,
    ]);
  });

  it('restricted tags', () => {
    expect(answer(nodeClass({ tags: { team: 'search', 'cost-center': '4411' } }))).toEqual([]);
    expect(answer(nodeClass({ tags: { '': 'x' } }))).toEqual([`spec.tags: Invalid value: "object": empty tag keys aren't supported`]);
    expect(answer(nodeClass({ tags: { 'kubernetes.io/cluster/replay': 'owned' } }))).toEqual([
      'spec.tags: Invalid value: "object": tag contains a restricted tag matching kubernetes.io/cluster/',
    ]);
    expect(answer(nodeClass({ tags: { 'karpenter.sh/nodepool': 'x' } }))).toEqual([
      'spec.tags: Invalid value: "object": tag contains a restricted tag matching karpenter.sh/nodepool',
    ]);
  });
});

describe('karpenter-object-rejected on a rule that errors while evaluated', () => {
  it('reports the object as rejected at the requirement, with the rule message and the evaluation error', async () => {
    const dir = join(FIXTURES, 'crd-replay');
    const r = await scan([join(dir, 'gitops')], { only: ['karpenter-object-rejected'], crds: join(dir, 'crds.yaml') });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object.name, f.message, anchorOf(f).pointer])).toEqual([
      [
        'error',
        'memory-heavy',
        expect.stringContaining(`spec.template.spec.requirements: Invalid value: "array": no such key: values evaluating rule: ${GT_MSG}`),
        '/spec/template/spec/requirements/1',
      ],
    ]);
    expect(r.findings[0]!.evidence[0]!.source).toBe(`${join(dir, 'gitops', 'nodepool.yaml')}:17`);
  });
});
