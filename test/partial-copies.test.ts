/**
 * One object pasted in partial copies (issue 20): a `kubectl get` row beside a `kubectl describe` cut short. Known
 * fields of any copy fill the unknown ones of the copy kept; a field the kept copy shows stays; a field no copy shows
 * stays unknown; each filled field is cited where its copy showed it.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject, Provenance } from '../src/kube/types.js';
import { fillFromCopy } from '../src/snapshot/merge-copies.js';
import { KIND } from '../src/kube/kinds.js';
import { FIXTURES, scan, scanRule } from './support/scan.js';

const ticket = (name: string) => `${FIXTURES}tickets/partial-copies/${name}`;

function copy(object: Partial<KubeObject>, line: number, from: string, known: string[]): { object: KubeObject; provenance: Provenance } {
  return {
    object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, ...object } as KubeObject,
    provenance: { source: 't.md', line, partial: { from, known } },
  };
}

describe('fillFromCopy', () => {
  it('fills what only the other copy shows, keeps what the kept one shows, matches conditions by type', () => {
    const kept = copy(
      { metadata: { name: 'n1', labels: { a: 'kept' } }, status: { conditions: [{ type: 'MemoryPressure', status: 'Unknown' }] } },
      20,
      'kubectl describe output',
      ['/metadata/name', '/metadata/labels', '/status/conditions'],
    );
    const other = copy(
      { metadata: { name: 'n1', labels: { a: 'other', b: 'x' } }, spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      3,
      'a kubectl get table',
      ['/metadata/name', '/metadata/labels/a', '/metadata/labels/b', '/spec/unschedulable', '/status/conditions/0/type', '/status/conditions/0/status'],
    );
    const filled = fillFromCopy(kept, other);
    expect(kept.object.metadata.labels).toEqual({ a: 'kept' });
    expect(kept.object.spec).toEqual({ unschedulable: true });
    expect((kept.object.status as { conditions: unknown[] }).conditions).toEqual([
      { type: 'MemoryPressure', status: 'Unknown' },
      { type: 'Ready', status: 'True' },
    ]);
    expect(filled.map((f) => [f.pointer, f.provenance.line])).toEqual([
      ['/spec/unschedulable', 3],
      ['/status/conditions/1', 3],
    ]);
    expect(kept.provenance.partial!.known).toEqual(expect.arrayContaining(['/spec/unschedulable', '/status/conditions/1/type', '/status/conditions/1/status']));
  });

  it("a row's Ready shown only as not True carries over, its status still unknown", () => {
    const kept = copy({ status: { conditions: [{ type: 'DiskPressure', status: 'False' }] } }, 20, 'kubectl describe output', [
      '/metadata/name',
      '/status/conditions',
    ]);
    const other = copy({}, 3, "eks-node-viewer's screen", ['/metadata/name']);
    other.provenance.partial!.notTrue = ['Ready'];
    fillFromCopy(kept, other);
    expect(kept.provenance.partial!.notTrue).toEqual(['Ready']);
    expect((kept.object.status as { conditions: unknown[] }).conditions).toEqual([{ type: 'DiskPressure', status: 'False' }]);
  });

  it('a field neither copy shows stays unknown; one the other shows empty becomes absent', () => {
    const kept = copy({ metadata: { name: 'n1' } }, 20, 'kubectl describe output', ['/metadata/name']);
    const other = copy({ metadata: { name: 'n1' } }, 3, 'a kubectl get table', ['/metadata/name', '/status/nodeName']);
    fillFromCopy(kept, other);
    expect(kept.provenance.partial!.known).toContain('/status/nodeName');
    expect(kept.provenance.partial!.known).not.toContain('/spec/taints');
    expect(kept.object.status).toBeUndefined();
  });
});

describe('partial copies in a ticket', () => {
  it("a get row's READY False reaches the rule when the describe of the class was cut before Status", async () => {
    const r = await scanRule('nodeclass-not-ready', [ticket('ec2nodeclass-row-and-spec-describe.md')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      { ruleId: 'nodeclass-not-ready', stated: true, reason: expect.stringMatching(/^EC2NodeClass gpu shows Ready=False, but not since when/) },
    ]);
    const gpu = r.snapshot.get(KIND.EC2NodeClass, undefined, 'gpu')!;
    // The describe is kept (it shows more): its labels, and the row's condition cited at the row's line.
    expect(gpu.metadata.labels).toEqual({ team: 'ml-platform' });
    expect(r.snapshot.fieldProvenance(gpu, '/status/conditions/0')?.line).toBe(7);
    expect(r.snapshot.fieldProvenance(gpu, '/metadata/labels')?.line).toBe(14);
  });

  it('a NotReady,SchedulingDisabled row merged with a describe cut above Ready is stated, not silent nor judged', async () => {
    const r = await scanRule('node-unhealthy-not-repaired', [ticket('node-notready-row-and-cut-describe.md')]);
    const name = 'ip-10-31-52-9.us-west-2.compute.internal';
    const node = r.snapshot.get(KIND.Node, undefined, name)!;
    expect(r.snapshot.conditionNotTrue(node, 'Ready')).toBe(true);
    expect(r.snapshot.conditionNotTrue(r.snapshot.get(KIND.Node, undefined, 'ip-10-31-40-118.us-west-2.compute.internal')!, 'Ready')).toBe(false);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      expect.objectContaining({
        ruleId: 'node-unhealthy-not-repaired',
        stated: true,
        reason: expect.stringMatching(
          new RegExp(
            `^Node ${name.replace(/\./g, '\\.')} is NotReady in \`kubectl describe\` output merged with a \`kubectl get\` table, which shows neither since when nor why;`,
          ),
        ),
      }),
    ]);
  });

  it("a NodeClaim row and its describe cut after Spec: labels, finalizers and the row's node merge; the reason names both copies", async () => {
    const r = await scan([ticket('nodeclaim-row-and-cut-describe.md')], { only: ['nodeclaim-not-registered'] });
    const nc = r.snapshot.get(KIND.NodeClaim, undefined, 'etl-5hq8c')!;
    expect(nc.metadata.labels?.['karpenter.sh/nodepool']).toBe('etl');
    expect(nc.metadata.finalizers).toEqual(['karpenter.sh/termination']);
    expect(r.snapshot.isKnown(nc, '/status/nodeName')).toBe(true);
    expect(r.snapshot.evidenceLine(nc, '/metadata/labels/karpenter.sh~1nodepool')).toBe(11);
    expect(r.run.notEvaluatedFor).toEqual([
      expect.objectContaining({
        ruleId: 'nodeclaim-not-registered',
        reason: expect.stringContaining('`kubectl describe` output merged with a `kubectl get` table does not show status.conditions'),
      }),
    ]);
  });
});
