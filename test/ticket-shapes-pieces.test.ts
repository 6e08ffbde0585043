/**
 * Pieces pasted from below an object's top, without `spec:` or `status:` above them (fixtures/tickets/shapes/pieces-*):
 * typed by where in which kind their keys fit (kind-inference.ts `inferPlacement`, from the table generated out of the
 * CRDs and core models), read as partial unnamed objects holding the piece there. Pieces whose keys fit below several
 * kinds are skipped naming the places; a chart's values that fit below none stay no object.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dig } from '../src/kube/fields.js';
import { inferPlacement } from '../src/loaders/kind-inference.js';
import { FIXTURES, findingLabel, scan } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'shapes', name);

async function read(name: string, now: string) {
  const own = file(name);
  const r = await scan([own], { now });
  return {
    r,
    objects: r.load.objects.map(
      (o) => `${o.object.apiVersion} ${o.object.kind} @${o.provenance.line} from ${o.provenance.inferredKind?.from.join(', ') ?? '-'}`,
    ),
    skipped: r.load.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`),
    findings: r.findings.map(findingLabel),
    notEvaluated: r.run.notEvaluatedFor.map((n) => `${n.ruleId}: ${n.reason.split(own).join('FILE')}`),
  };
}

describe('pieces pasted from below spec: or status:', () => {
  it('v1: a node class spec and a claim status are typed; requirements with nodeClassRef fit two kinds and are named', async () => {
    const { r, objects, skipped, findings } = await read('pieces-v1.md', '2025-04-02T10:00:00Z');
    expect(objects).toEqual([
      'karpenter.k8s.aws/v1 EC2NodeClass @7 from spec.role, spec.amiSelectorTerms, spec.subnetSelectorTerms, spec.securityGroupSelectorTerms',
      'karpenter.sh/v1 NodeClaim @21 from status.imageID, condition Launched, condition Registered',
    ]);
    const [nodeClass, claim] = r.load.objects;
    expect(dig(nodeClass!.object, 'spec', 'role')).toBe('KarpenterNodeRole-ingest-prod');
    expect(nodeClass!.object.metadata.name).toBeUndefined();
    expect(nodeClass!.provenance.partial?.known).toEqual([
      '/spec/amiFamily',
      '/spec/role',
      '/spec/amiSelectorTerms',
      '/spec/subnetSelectorTerms',
      '/spec/securityGroupSelectorTerms',
    ]);
    expect(claim!.provenance.partial?.from).toBe(
      "a piece of NodeClaim's status pasted without the lines above it, read from status.imageID, condition Launched, condition Registered",
    );
    expect(skipped).toContain(
      "41 part of an object without its kind or the key above it (keys: nodeClassRef, requirements, taints): kind not inferred, its fields fit below more than one kind (it could be NodeClaim's spec or NodePool's spec.template.spec); include the `kubectl get KIND NAME -o yaml` line that printed it",
    );
    // The claim's status shows the symptom itself; nothing is said of what the pieces do not show.
    expect(findings).toEqual(['unregistered-taint-problem NodeClaim (no name)']);
  });

  it('v1beta1: a NodePool spec is typed by the fields only that generation has, and what it does not show is not judged', async () => {
    const { r, objects, findings, notEvaluated } = await read('pieces-v1beta1.md', '2024-05-10T12:00:00Z');
    expect(objects).toEqual([
      'karpenter.sh/v1beta1 NodePool @5 from spec.disruption, spec.template.spec.kubelet, spec.template.spec.nodeClassRef, spec.template.spec.requirements',
    ]);
    expect(r.load.objects[0]!.provenance.partial?.known).toEqual(['/spec/disruption', '/spec/template', '/spec/weight']);
    expect(findings).not.toContain('nodepool-without-limits NodePool (no name)');
    expect(notEvaluated.find((n) => n.startsWith('nodepool-without-limits:'))).toContain("a piece of NodePool's spec pasted without the lines above it");
    expect(notEvaluated.find((n) => n.startsWith('nodepool-without-limits:'))).toContain('does not show spec.limits');
  });

  it('v1alpha5: a Provisioner spec pasted unfenced in a mail', async () => {
    const { objects, r } = await read('pieces-v1alpha5.txt', '2023-03-01T12:00:00Z');
    expect(objects).toEqual(['karpenter.sh/v1alpha5 Provisioner @8 from spec.provider, spec.consolidation, spec.ttlSecondsAfterEmpty']);
    expect(dig(r.load.objects[0]!.object, 'spec', 'ttlSecondsAfterEmpty')).toBe(30);
  });

  it('v1alpha5 consolidation is read where a Provisioner keeps it (spec.consolidation, ttlSecondsAfterEmpty), not asked of spec.disruption', async () => {
    const mail = await read('pieces-v1alpha5.txt', '2023-03-01T12:00:00Z');
    expect(mail.findings).toContain('consolidation-disabled-for-underused-nodes Provisioner (no name)');
    // The mail's piece shows no taints: the pool is not called general-purpose on what it does not show.
    expect(mail.r.findings.find((f) => f.ruleId === 'consolidation-disabled-for-underused-nodes')?.messageId).toBe('taintsNotShown');
    // Another ticket: consolidation on, shown alone, settles it (the API refuses a TTL with it); a TTL alone does too.
    const { findings, notEvaluated } = await read('pieces-v1alpha5-consolidation.md', '2023-09-02T15:00:00Z');
    expect(findings.filter((f) => f.startsWith('consolidation-disabled'))).toEqual(['consolidation-disabled-for-underused-nodes Provisioner (no name)']);
    expect(notEvaluated.filter((n) => n.startsWith('consolidation-disabled'))).toEqual([]);
    // Fields no Provisioner has are not asked for: budgets, terminationGracePeriod, template annotations.
    expect(notEvaluated.filter((n) => /does not show spec(\.template|\.disruption|:)/.test(n))).toEqual([]);
  });

  it('a chart’s values with NodePool-like keys, pod defaults and a bare limits map stay unread', async () => {
    const { objects, skipped } = await read('pieces-values-near-miss.md', '2025-04-02T10:00:00Z');
    expect(objects).toEqual([]);
    expect(skipped).toEqual([
      '4 not a Kubernetes object (no apiVersion/kind; keys: nodeClass, limits, requirements, disruption) (and 1 more like it in this file, at line 29)',
      "20 part of an object without its kind or the key above it (keys: nodeSelector, tolerations): kind not inferred, its fields fit below more than one kind (it could be Deployment's spec.template.spec or Pod's spec); include the `kubectl get KIND NAME -o yaml` line that printed it",
      '1 prose (3 paragraphs), not objects or logs',
    ]);
  });
});

describe('inferPlacement', () => {
  it('a status piece by its condition types, a spec piece by its fields', () => {
    expect(inferPlacement({ conditions: [{ type: 'MachineLaunched', status: 'True' }], providerID: 'aws:///a/i-1' })).toMatchObject({
      kind: 'Machine',
      at: 'status',
    });
    expect(inferPlacement({ disruption: { consolidateAfter: '1m', budgets: [{ nodes: '10%' }] } })).toMatchObject({ kind: 'NodePool', at: 'spec' });
  });

  it('keys of an open map alone, or a field no kind has, type nothing', () => {
    expect(inferPlacement({ limits: { cpu: '100', memory: '400Gi' } })).toMatchObject({ candidates: [], reason: 'shows too few fields to tell its kind by' });
    expect(inferPlacement({ disruption: { consolidationPolicy: 'WhenEmpty' }, instanceFamilies: ['m6i'] })).toMatchObject({ candidates: [] });
  });
});
