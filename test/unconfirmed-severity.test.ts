/**
 * Issue 20 item 1: severity may be lower until confirmed, never higher. A finding that rests on records alone, on a
 * symptom, or on part of an object is at most a warning (engine/confirmation.ts), and its message claims only what the
 * input shows; the same cause shown by whole objects keeps the rule's severity.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan, scanRule } from './support/scan.js';
import { caseDir } from './rules/fixture-helpers.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', 'unconfirmed', name);

describe('launch refused by the cloud provider: one record, and a reporter who says other launches work', () => {
  it('is a warning that says no later launch is in the input, not that none succeeded', async () => {
    const r = await scan([ticket('ami-refused-some-launches-work.md')]);
    const f = r.findings.filter((x) => x.ruleId === 'launch-refused-by-cloud-provider');
    expect(f.map((x) => [x.severity, x.object.kind, x.object.name])).toEqual([['warning', 'NodePool', 'ingest']]);
    expect(f[0]!.message).toContain('the AMI does not exist; no later successful launch is in the input');
    expect(f[0]!.message).not.toContain('has succeeded since');
    expect(r.findings.filter((x) => x.severity === 'error')).toEqual([]);
  });

  it('confirmed by the NodeClaims listed whole: an error, and the claim is made', async () => {
    const r = await scanRule('launch-refused-by-cloud-provider', [caseDir('launch-refused-by-cloud-provider', 'fires-conditions')]);
    expect(r.findings.map((x) => x.severity)).toEqual(['error']);
    expect(r.findings[0]!.message).toContain('no launch has succeeded since');
  });
});

describe('kubectl apply refused by the API server, read as its record', () => {
  it("the old webhook's refusal of a Provisioner and kubectl's schema check of a NodePool: each stated, at warning", async () => {
    const r = await scan([ticket('apply-refused-provisioner-and-nodepool.md')]);
    const f = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f.map((x) => [x.severity, x.object.kind, x.messageId])).toEqual([
      ['warning', 'NodePool', 'statedApplyRefused'],
      ['warning', 'Provisioner', 'statedApplyRefused'],
    ]);
    expect(f[1]!.message).toContain(
      "by Karpenter's validating webhook: validation failed: ttlSecondsAfterEmpty and consolidation.enabled are mutually exclusive",
    );
    expect(f[0]!.message).toContain('unknown field "kubeletConfiguration"');
    expect(f[0]!.evidence[0]!.note).toBe('stated by kubectl');
    // The two refusals are read, not listed as shell blocks left unread.
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (3 paragraphs), not objects or logs']);
  });
});

describe("kubectl's refusal behind its own `error: ` prefix, and the newer strict decoding wording", () => {
  it('reads each refusal of a Karpenter kind as kubectl printed it, at warning; a refused Deployment stays unread', async () => {
    const r = await scan([ticket('apply-refused-kubectl-error-prefix.md')]);
    const f = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f.map((x) => [x.severity, x.object.kind, x.messageId])).toEqual([
      ['warning', 'EC2NodeClass', 'statedApplyRefused'],
      ['warning', 'NodePool', 'statedApplyRefused'],
    ]);
    expect(f[0]!.message).toContain('by kubectl\'s schema check: missing required field "amiFamily"');
    expect(r.load.logs).toHaveLength(2);
    expect(r.findings.filter((x) => x.severity === 'error')).toEqual([]);
  });
});

describe('kubectl refusing a field the kind has at the version applied: CRDs older than the manifest', () => {
  it('states the stale CRD and its fix under karpenter-api-version-mismatch; a field the kind lacks stays a refused manifest', async () => {
    const r = await scan([ticket('apply-refused-field-the-kind-has.md')]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === 'karpenter-api-version-mismatch').map((n) => n.reason);
    expect(stated).toHaveLength(2);
    expect(stated[0]).toContain('spec.disruption.budgets of NodePool karpenter.sh/v1beta1 unknown, yet NodePool karpenter.sh/v1beta1 has it');
    expect(stated[1]).toContain('spec.detailedMonitoring of AWSNodeTemplate karpenter.k8s.aws/v1alpha1');
    expect(stated[0]).toContain('Apply the CRDs of the Karpenter version you run');
    const f = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f.map((x) => [x.severity, x.object.kind])).toEqual([['warning', 'NodePool']]);
    expect(f[0]!.message).toContain('unknown field "consolidateAftr"');
    expect(r.findings.filter((x) => x.severity === 'error')).toEqual([]);
  });
});

describe('the cap lowers the rule default only: a severity the user configured is applied as set', () => {
  it('default: capped, and the finding says from what and why', async () => {
    const r = await scan([ticket('ami-refused-some-launches-work.md')]);
    const f = r.findings.find((x) => x.ruleId === 'launch-refused-by-cloud-provider')!;
    expect(f.severity).toBe('warning');
    expect(f.severityCapped).toEqual({ from: 'error', because: 'no NodeClaim list shows whether a later launch succeeded' });
  });

  it('configured error: an error, not capped, for another rule and another kind of evidence too', async () => {
    const severity = { 'launch-refused-by-cloud-provider': 'error', 'karpenter-object-rejected': 'error' } as const;
    const launch = await scan([ticket('ami-refused-some-launches-work.md')], { severity });
    const f = launch.findings.find((x) => x.ruleId === 'launch-refused-by-cloud-provider')!;
    expect([f.severity, f.severityCapped]).toEqual(['error', undefined]);
    const apply = await scan([ticket('apply-refused-provisioner-and-nodepool.md')], { severity });
    const refused = apply.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(refused.map((x) => [x.severity, x.severityCapped])).toEqual([
      ['error', undefined],
      ['error', undefined],
    ]);
  });

  it('a configured severity lower than the default is applied too, and nothing is said to be capped', async () => {
    const r = await scan([ticket('ami-refused-some-launches-work.md')], { severity: { 'launch-refused-by-cloud-provider': 'info' } });
    const f = r.findings.find((x) => x.ruleId === 'launch-refused-by-cloud-provider')!;
    expect([f.severity, f.severityCapped]).toEqual(['info', undefined]);
  });

  it('whole objects: the rule default stands, nothing capped', async () => {
    const r = await scanRule('launch-refused-by-cloud-provider', [caseDir('launch-refused-by-cloud-provider', 'fires-conditions')]);
    expect(r.findings.map((x) => [x.severity, x.severityCapped])).toEqual([['error', undefined]]);
  });
});
