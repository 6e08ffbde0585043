import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scan, scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine } from './fixture-helpers.js';

const RULE = 'no-instance-type-fits';

describe(`${RULE} — fires from events (v1.2.1): no allowed size is big enough; the solver's pod is left to the solver`, () => {
  const dir = caseDir(RULE, 'fires-events');
  it("reports Pod reports/renderer-0 with each pool's clause", async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'reports', name: 'renderer-0' });
    expect(f.message).toContain('Karpenter could not schedule it 23 times between 2025-07-08T09:02:14Z and 2025-07-08T09:48:20Z');
    expect(f.message).toContain('NodePool gpu: did not tolerate nvidia.com/gpu=true:NoSchedule');
    expect(f.message).toContain('NodePool default: no instance type satisfied resources {"cpu":"48210m","memory":"98644Mi","pods":"5"}');
    const [ev] = evidenceOf(f, 'Event');
    expectSourceIs(ev!, join(dir, 'events.yaml'));
    expect(String(ev!.value)).toMatch(/^FailedScheduling: Failed to schedule pod, incompatible with nodepool "gpu"/);
    expect(
      evidenceOf(f, 'NodePool', '/spec/template/spec/requirements')
        .map((e) => e.object!.name)
        .sort(),
    ).toEqual(['default', 'gpu']);
    expect(f.fix).toContain('allow larger instance types');
  });
  it("one owner per pod: ml/notebook-0 (statically unfit everywhere) is pending-pod-no-nodepool-fits' alone", async () => {
    const r = await scan([dir]);
    const onNotebook = r.findings.filter((f) => f.object.name === 'notebook-0').map((f) => f.ruleId);
    expect(onNotebook).toEqual(['pending-pod-no-nodepool-fits']);
    expect(r.findings.filter((f) => f.object.name === 'renderer-0').map((f) => f.ruleId)).toEqual([RULE]);
  });
});

describe(`${RULE} — fires from logs alone, every generation`, () => {
  it('v1.5 "could not schedule pod" with error and structured NodePool', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'analytics', name: 'duckdb-worker-0' });
    expect(f.message).toContain('4 times');
    expect(f.message).toContain('NodePool arm-spot: no instance type met the scheduling requirements or had enough resources');
    expect(f.message).toContain('kubectl get pod -n analytics duckdb-worker-0 -o yaml would confirm it still waits (from logs only)');
    for (const e of f.evidence) expect(logLine(e.source)).toContain('"message":"could not schedule pod"');
  });
  it('v0.32–v0.36 "Could not schedule pod, incompatible with nodepool …"', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.35')])).findings[0]!;
    expect(f.object.name).toBe('trainer-5d8f9c-xk2vb');
    expect(f.message).toContain('NodePool default: no instance type satisfied resources {"cpu":"310m","memory":"424Mi","nvidia.com/gpu":"4","pods":"6"}');
  });
  it('≤ v0.31 console: a Provisioner and a label without known values', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.31')])).findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'data', name: 'spark-exec-3' });
    expect(f.message).toContain('Provisioner default: incompatible requirements, label "workload-tier" does not have known values');
    expect(f.fix).toContain("add it to the pool's template labels or requirements");
  });
});

describe(`${RULE} — near-miss: failed once, nominated three minutes later, Running now`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — missing: Pods and NodePools but no events or logs`, () => {
  it("is not evaluated and names both ways to collect Karpenter's words", async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated[0]!.reason).toBe(
      'the dump contains no Events or Karpenter controller logs (add the output of `kubectl get events -A -o yaml`, `kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -c controller --tail=-1`)',
    );
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-events',
      findings: [{ kind: 'Pod', namespace: 'reports', name: 'renderer-0', pointer: '/status/conditions/0', severity: 'error' }],
      message: {
        name: 'renderer-0',
        text: 'Pod reports/renderer-0: Karpenter could not schedule it 23 times between 2025-07-08T09:02:14Z and 2025-07-08T09:48:20Z — NodePool gpu: did not tolerate nvidia.com/gpu=true:NoSchedule; NodePool default: no instance type satisfied resources {"cpu":"48210m","memory":"98644Mi","pods":"5"} and requirements karpenter.k8s.aws/instance-category In [m], karpenter.k8s.aws/instance-size In [2xlarge large xlarge], karpenter.sh/capacity-type In [on-de….',
      },
    },
    {
      case: 'fires-logs-v0.31',
      findings: [{ kind: 'Pod', namespace: 'data', name: 'spark-exec-3', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.35',
      findings: [{ kind: 'Pod', namespace: 'vision', name: 'trainer-5d8f9c-xk2vb', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'Pod', namespace: 'analytics', name: 'duckdb-worker-0', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
