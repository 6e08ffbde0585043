import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf } from '../../src/engine/findings.js';
import { readCrdPath, withoutHelmActions } from '../../src/loaders/crd-files.js';
import type { KubeObject } from '../../src/kube/types.js';
import { evaluate } from '../../src/snapshot/crd/cel.js';
import { CrdSet } from '../../src/snapshot/crd/crds.js';
import { validate, type Schema } from '../../src/snapshot/crd/schema.js';
import { scan, scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, expectSourceAtField, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'karpenter-object-rejected';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: a repository with its CRDs, an EC2NodeClass and a NodePool the API server would refuse`, () => {
  const dir = caseDir(RULE, 'fires');
  const nodeClassFile = join(dir, 'karpenter/ec2nodeclass.yaml');
  const poolFile = join(dir, 'karpenter/nodepool.yaml');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('one finding per refused field, each at the line to edit', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`, anchorOf(f).pointer])).toEqual([
      ['error', 'EC2NodeClass/hardened', '/spec'],
      ['error', 'NodePool/batch', '/spec/template/spec/nodeClassRef/group'],
      ['error', 'NodePool/batch', '/spec/template/spec/requirements/2/operator'],
      ['error', 'NodePool/batch', '/spec/template/spec/requirements/1'],
      ['error', 'NodePool/batch', '/spec/template/spec/requirements/0'],
      ['error', 'NodePool/batch', '/spec/disruption/budgets/1/duration'],
      ['error', 'NodePool/batch', '/spec/disruption/budgets/0'],
      ['error', 'NodePool/batch', '/spec/weight'],
    ]);
  });

  it("an AMI selected by id without amiFamily: the CRD's CEL message, at the spec", () => {
    const f = r.findings[0]!;
    expect(f.message).toBe(
      'EC2NodeClass hardened would be rejected by the API server (CRD ec2nodeclasses.karpenter.k8s.aws, v1; the CRDs in the input): spec: Invalid value: "object": amiFamily is required when no amiSelectorTerm uses an alias',
    );
    expect(f.evidence.map((e) => e.note)).toEqual(['CRD rule: amiFamily is required when no amiSelectorTerm uses an alias']);
    expectSourceAtField(f.evidence[0]!, nodeClassFile, 'spec:');
    expect(f.fix).toContain('Set spec.amiFamily');
  });

  it('a nodeClassRef group carrying a version: the schema pattern, at the group line', () => {
    const f = r.findings[1]!;
    expect(f.message).toBe(
      `NodePool batch would be rejected by the API server (CRD nodepools.karpenter.sh, v1; the CRDs in the input): spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1": spec.template.spec.nodeClassRef.group in body should match '^[^/]*$'`,
    );
    expectSourceAtField(f.evidence[0]!, poolFile, 'group: karpenter.k8s.aws/v1');
    expect(f.fix).toContain('karpenter.k8s.aws (not karpenter.k8s.aws/v1)');
  });

  it('an unknown operator, a Gt with two values, minValues above the values given: each requirement at its own line', () => {
    const [op, gt, min] = r.findings.slice(2, 5);
    expect(op!.message).toContain(
      'spec.template.spec.requirements[2].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
    );
    expectSourceAtField(op!.evidence[0]!, poolFile, 'operator: Equals');
    // The server names the list; the finding points at the requirement that breaks the rule.
    expect(gt!.message).toContain(`spec.template.spec.requirements: Invalid value: "array": a 'Gt' or 'Lt' requirement takes exactly one non-negative integer`);
    expectSourceAtField(gt!.evidence[0]!, poolFile, '- key: karpenter.k8s.aws/instance-cpu');
    expect(min!.message).toContain('spec.template.spec.requirements: Invalid value: "array": minValues cannot be more than the number of values listed');
    expectSourceAtField(min!.evidence[0]!, poolFile, '- key: karpenter.k8s.aws/instance-family');
  });

  it('budgets: a duration in days (pattern), a schedule without duration (CEL), and weight 0 (minimum)', () => {
    const [duration, schedule, weight] = r.findings.slice(5);
    expect(duration!.message).toContain(
      `spec.disruption.budgets[1].duration: Invalid value: "1d": spec.disruption.budgets[1].duration in body should match '^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$'`,
    );
    expectSourceAtField(duration!.evidence[0]!, poolFile, 'duration: 1d');
    expect(schedule!.message).toContain(
      'spec.disruption.budgets: Invalid value: "array": a budget with a schedule needs a duration, and a duration needs a schedule',
    );
    expectSourceAtField(schedule!.evidence[0]!, poolFile, '- nodes: "0"');
    expect(weight!.message).toContain('spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1');
    expectSourceAtField(weight!.evidence[0]!, poolFile, 'weight: 0');
  });

  it('other rules add nothing on the refused objects while this rule runs, and speak again when it is off', async () => {
    const all = await scan([dir]);
    expect(all.findings.every((f) => f.ruleId === RULE)).toBe(true);
    const without = await scan([dir], { disabled: [RULE] });
    expect(without.findings.map((f) => `${f.ruleId} ${f.object.kind}/${f.object.name}`).sort()).toEqual([
      'disruption-budget-blocks-all NodePool/batch',
      'nodepool-missing-nodeclass NodePool/batch',
      'nodepool-without-limits NodePool/batch',
      // Not unregistered-taint-problem on EC2NodeClass hardened: in a repository a class without amiFamily is not a
      // Custom AMI but an object the server refuses, whatever rules run (test/real-repo-shapes.test.ts).
    ]);
  });
});

describe(`${RULE} — near-miss: valid objects with nulls, unknown fields, defaults, transition rules and a templated value`, () => {
  it('rejects nothing; the rule over a value not rendered yet is named as not evaluated', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ EC2NodeClass: 2, NodePool: 2, CustomResourceDefinition: 2 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([
      {
        ruleId: RULE,
        reason:
          '1 object with validation rules that could not be evaluated here (judged on the rest): NodePool templated (spec.template.spec.requirements: a value is not rendered yet (template))',
      },
    ]);
  });
});

describe(`${RULE} — missing: Karpenter objects, no CRDs`, () => {
  it('is not evaluated, and says which flag settles it', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([{ ruleId: RULE, reason: expect.stringContaining('pass --crds FILE|DIR') }]);
  });

  it('judges the same objects once CRDs are given (here: the karpenter-crd chart, Helm actions and all)', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')], {});
    const read = readCrdPath(caseDir(RULE, 'karpenter-crd-chart'));
    expect(read.crds.map((c) => c.metadata.name)).toEqual(['ec2nodeclasses.karpenter.k8s.aws', 'nodepools.karpenter.sh']);
    // Chart.yaml and values.yaml hold no CRD: named, not fatal.
    expect(read.skipped.map((s) => [s.source.split('/').pop(), s.reason])).toEqual([
      ['Chart.yaml', 'no CustomResourceDefinition in this file'],
      ['values.yaml', 'no CustomResourceDefinition in this file'],
    ]);
    r.snapshot.useCrds(read.crds, '--crds chart');
    expect(r.snapshot.isRejected(r.snapshot.nodePools()[0]!.object)).toBe(true);
  });
});

describe(`${RULE} — the validator`, () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] },
          zone: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.find('^[a-z]+-[a-z]+') == 'us-east'", message: 'only us-east' }] },
          shape: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.unknownFunction()', message: 'never evaluated' }] },
          count: {
            type: 'integer',
            'x-kubernetes-validations': [
              { rule: 'self > 2', messageExpression: "'count must exceed 2, got ' + string(self)", reason: 'FieldValueForbidden', fieldPath: '.' },
            ],
          },
        },
      },
    },
  };
  const obj = (spec: Record<string, unknown>) => ({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec });

  it('skips transition rules on create, evaluates Kubernetes regex functions, and never rejects on a rule it cannot run', () => {
    const v = validate(obj({ name: 'n', zone: 'eu-west-1', shape: 'round', count: 1 }), schema);
    expect(v.violations.map((x) => `${x.field}: ${x.detail}`)).toEqual([
      'spec.zone: Invalid value: "string": only us-east',
      'spec.count: Forbidden: count must exceed 2, got 1',
    ]);
    expect(v.unjudged).toEqual([{ field: 'spec.shape', rule: 'self.unknownFunction()', why: expect.stringContaining('unknownFunction') }]);
  });

  it('integers are CEL ints; find and findAll follow RE2', () => {
    expect(evaluate("self.findAll('[0-9]+').size() == 2", 'a1b22')).toEqual({ value: true });
    expect(evaluate("self.find('(?=a)')", 'a')).toMatchObject({ error: expect.any(String) });
    expect(validate(obj({ count: 3 }), schema).violations).toEqual([]);
  });

  it('matches, find, findAll and schema patterns run on RE2: a nested quantifier over a long label answers at once', () => {
    // On a backtracking engine each of these takes 2^40 steps: the test would hang rather than pass.
    const label = `${'a'.repeat(40)}!`;
    expect(evaluate("self.matches('^(a+)+$')", label)).toEqual({ value: false });
    expect(evaluate("self.find('(a|aa)+$')", label)).toEqual({ value: '' });
    expect(evaluate("self.findAll('(a*)*b').size()", label)).toEqual({ value: 0n });
    expect(evaluate("self.find('a|ab')", 'xab')).toEqual({ value: 'a' });
    const patterned: Schema = { type: 'object', properties: { spec: { type: 'object', properties: { key: { type: 'string', pattern: '^(a|a)+$' } } } } };
    expect(validate(obj({ key: label }), patterned).violations.map((x) => x.field)).toEqual(['spec.key']);
  });

  it('schema keywords word their violations as the API server does', () => {
    const s: Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          required: ['nodes'],
          properties: {
            nodes: { type: 'string' },
            zones: { type: 'array', maxItems: 2, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 5 } },
            limits: { type: 'object', additionalProperties: { 'x-kubernetes-int-or-string': true } },
            at: { type: 'string', format: 'date-time' },
            unknownIsFine: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    };
    const v = validate(
      {
        apiVersion: 'x/v1',
        kind: 'X',
        metadata: {},
        spec: { zones: ['a', 'a', 'toolong'], limits: { cpu: 1.5, memory: '1Gi' }, at: 'yesterday', extra: 1, unknownIsFine: { x: 1 } },
      },
      s,
    );
    // `extra` is pruned, not refused; nor is anything under a field that keeps unknown fields.
    expect(v.violations.map((x) => `${x.field}: ${x.detail}`)).toEqual([
      'spec.nodes: Required value',
      'spec.zones: Too many: 3: must have at most 2 items',
      'spec.zones[1]: Duplicate value: "a"',
      'spec.zones[2]: Too long: may not be more than 5 bytes',
      'spec.limits.cpu: Invalid value: "number": spec.limits.cpu in body must be of type integer or string: "number"',
      'spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"',
    ]);
  });

  it("strips a chart's Helm actions: blocks left out, inline values emptied", () => {
    expect(withoutHelmActions('a: 1\n{{- if .Values.x }}\nb: {{ .Values.y }}\n{{- end }}\nc: {{ .Release.Name }}\n')).toBe('a: 1\nc: ""\n');
  });

  it('status (a subresource) and metadata are not judged; a null is dropped, not refused', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'xs.karpenter.sh' },
      spec: {
        group: 'karpenter.sh',
        names: { kind: 'X' },
        versions: [
          {
            name: 'v1',
            served: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { ...schema, properties: { ...schema.properties, status: { type: 'string' }, metadata: { type: 'string' } } } },
          },
        ],
      },
    } as unknown as KubeObject;
    const set = new CrdSet([crd]);
    const o = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'X',
      metadata: { name: 'a' },
      spec: { zone: null, count: 3 },
      status: { anything: 1 },
    } as unknown as KubeObject;
    expect(set.judge(o)).toMatchObject({ violations: [], unjudged: [], crdName: 'xs.karpenter.sh', version: 'v1' });
    expect(set.judge({ ...o, apiVersion: 'karpenter.sh/v1beta1' })).toEqual({ why: 'CRD xs.karpenter.sh does not serve v1beta1' });
  });
});

describe(`${RULE} — fires-cluster: kubectl get output with the cluster's CRDs; objects the cluster admitted before its CRDs changed`, () => {
  it('a stored object that fails the CRDs in use is a warning; a required field missing from a partial copy is not reported', async () => {
    const dir = caseDir(RULE, 'fires-cluster');
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`, anchorOf(f).pointer])).toEqual([
      ['warning', 'EC2NodeClass/legacy-ami', '/spec'],
    ]);
    expect(r.findings[0]!.message).toBe(
      'EC2NodeClass legacy-ami, as stored in the cluster, no longer passes its CRD (ec2nodeclasses.karpenter.k8s.aws, v1; the CRDs in the input): the API server would refuse it if it were applied again as it is: spec: Invalid value: "object": amiFamily is required when no amiSelectorTerm uses an alias',
    );
    // Admitted once: the other rules keep their diagnoses of it.
    const all = await scan([dir]);
    expect(all.findings.map((f) => f.ruleId)).toContain('unregistered-taint-problem');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'EC2NodeClass', name: 'hardened', pointer: '/spec', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/template/spec/nodeClassRef/group', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/template/spec/requirements/2/operator', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/template/spec/requirements/1', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/template/spec/requirements/0', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/disruption/budgets/1/duration', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/disruption/budgets/0', severity: 'error' },
        { kind: 'NodePool', name: 'batch', pointer: '/spec/weight', severity: 'error' },
      ],
      message: {
        name: 'hardened',
        text: 'EC2NodeClass hardened would be rejected by the API server (CRD ec2nodeclasses.karpenter.k8s.aws, v1; the CRDs in the input): spec: Invalid value: "object": amiFamily is required when no amiSelectorTerm uses an alias',
      },
    },
    {
      case: 'fires-cluster',
      findings: [{ kind: 'EC2NodeClass', name: 'legacy-ami', pointer: '/spec', severity: 'warning' }],
    },
  ],
  nearMiss: [
    {
      partly:
        '1 object with validation rules that could not be evaluated here (judged on the rest): NodePool templated (spec.template.spec.requirements: a value is not rendered yet (template))',
    },
  ],
  missing: [
    {
      reason:
        'no Karpenter CRDs to validate against: pass --crds FILE|DIR (CRD manifests or the karpenter-crd chart), add `kubectl get crd -o yaml` to the input, or give --karpenter-version so they can be downloaded',
    },
  ],
});
