import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, splitSource, unexpectedSkips } from './fixture-helpers.js';
import { readFileSync } from 'node:fs';

const RULE = 'duplicate-nodeclaims';
type Scan = Awaited<ReturnType<typeof scanRule>>;

/** The log line a `file:line` source points at. */
function lineAt(source: string): string {
  const { file, line } = splitSource(source);
  return readFileSync(file, 'utf8').split('\n')[line - 1]!;
}

describe(`${RULE} — fires: Karpenter v1.2.1, Immediate gp2 claim, controller logs in a cluster-info dump layout`, () => {
  const dir = caseDir(RULE, 'fires');
  const LOGS = join(dir, 'kube-system/karpenter-6d4f8b7c9-q2x7m/logs.txt');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads objects and both controller replicas’ logs', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, NodeClaim: 2, NodePool: 1, StorageClass: 2, PersistentVolumeClaim: 1, Pod: 6, Event: 3 });
    expect(r.snapshot.logs.length).toBe(18);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.snapshot.referenceTime.iso).toBe('2025-03-04T10:41:07.000Z');
  });

  it('reports one warning, on the NodePool', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'default' });
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: 'default-7xk2p' },
      { kind: 'Node', name: 'ip-10-0-141-12.us-west-2.compute.internal' },
    ]);
  });

  it('names both NodeClaims with their zones, the shared pod, the empty one and the trigger', () => {
    expect(f.message).toContain(
      'NodePool default launched 2 NodeClaims within 11s for the same pending pod(s) db/orders-db-0 (per the logs): default-4hd9q (us-west-2a), default-7xk2p (us-west-2c); default-4hd9q was removed as empty (2025-03-04T10:21:14.508Z).',
    );
    expect(f.message).toContain(
      'Likely trigger: StorageClass gp2 binds Immediately (volumeBindingMode not set) and db/orders-db-0 uses it through data-orders-db-0',
    );
    expect(f.message).toContain('(see rule storageclass-immediate-binding)');
    expect(f.message).toContain('Karpenter before v1.7.0 provisions before the claim binds.');
  });

  it('cites the log records at their lines: two batches, two creates, launches in different zones, the empty disruption', () => {
    const logs = f.evidence.filter((e) => e.object?.kind === 'Pod' && e.path === null);
    for (const e of logs) expect(splitSource(e.source).file).toBe(LOGS);
    const lines = logs.map((e) => lineAt(e.source));
    expect(lines.filter((l) => l.includes('"message":"found provisionable pod(s)"') && l.includes('"Pods":"db/orders-db-0"'))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('"message":"created nodeclaim"'))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('"message":"launched nodeclaim"')).map((l) => /"zone":"([^"]+)"/.exec(l)![1])).toEqual(['us-west-2a', 'us-west-2c']);
    expect(
      lines.some((l) => l.includes('disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods) ip-10-0-36-88') && l.includes('"reason":"empty"')),
    ).toBe(true);
    expect(logs.find((e) => e.note === 'default-4hd9q disrupted as empty')).toBeDefined();
  });

  it('cites the surviving NodeClaim, the Immediate StorageClass and the claim in their files', () => {
    const [created] = evidenceOf(f, 'NodeClaim', '/metadata/creationTimestamp');
    expect(created!.object!.name).toBe('default-7xk2p');
    expect(rawValueAt(created!)).toBe('2025-03-04T10:15:13Z');
    expectSourceIs(created!, join(dir, 'karpenter.yaml'));
    const [mode] = evidenceOf(f, 'StorageClass', '/volumeBindingMode');
    expect(mode!.object!.name).toBe('gp2');
    expect(mode!.value).toBeNull();
    expect(mode!.note).toBe('not set: the API default is Immediate');
    expectSourceIs(mode!, join(dir, 'storage.yaml'));
    const [pvc] = evidenceOf(f, 'PersistentVolumeClaim', '/spec/storageClassName');
    expect(rawValueAt(pvc!)).toBe('gp2');
  });

  it('fix: WaitForFirstConsumer; nothing left to delete (the empty NodeClaim is gone)', () => {
    expect(f.fix).toContain('volumeBindingMode: WaitForFirstConsumer');
    expect(f.fix).not.toContain('kubectl delete nodeclaim');
  });

  it('the window is configurable: 10s separates the two creates (11s apart)', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { window: '10s' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { window: '15s' } } })).findings).toHaveLength(1);
  });

  it('without the logs: Nominated events tie the pod to both NodeClaims, but the removed one is unknown → silent', async () => {
    const files = ['nodes.yaml', 'karpenter.yaml', 'storage.yaml', 'pods.yaml', 'events.yaml', 'karpenter-deployment.yaml'].map((x) => join(dir, x));
    const r2 = await scanRule(RULE, files);
    expect(r2.findings).toEqual([]);
  });

  it('with Karpenter v1.7.0 (--karpenter-version, no controller in the input) the trigger text changes', async () => {
    const files = ['nodes.yaml', 'karpenter.yaml', 'storage.yaml', 'pods.yaml', 'events.yaml', 'kube-system'].map((x) => join(dir, x));
    const r2 = await scanRule(RULE, files, { karpenterVersion: '1.7.0' });
    expect(r2.findings[0]!.message).toContain('Karpenter v1.7.0 waits for such claims to bind, so this burst predates the upgrade or has another cause.');
    const r3 = await scanRule(RULE, files);
    expect(r3.findings[0]!.message).toContain('(version unknown: assumes a version before v1.7.0, which provisions before Immediate claims bind)');
  });
});

describe(`${RULE} — fires-v0.36: v1beta1 objects, v0.32–v0.36 JSON logs (lowercase keys), undeclared Cilium taint`, () => {
  const dir = caseDir(RULE, 'fires-v0.36');
  it('reports the pool, the still-empty tainted NodeClaim and the taint trigger', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.36.2');
    expect(r.snapshot.referenceTime.iso).toBe('2024-06-12T18:03:29.000Z');
    expect(r.snapshot.logs.length).toBe(8);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1beta1', kind: 'NodePool', namespace: null, name: 'default' });
    expect(f.message).toContain(
      'NodePool default launched 2 NodeClaims within 28s for the same pending pod(s) web/checkout-7d9f8c6b5-4kq2p, web/checkout-7d9f8c6b5-8zt6m (per the logs): default-5vx8h (eu-central-1a), default-g7kcw (eu-central-1b); default-g7kcw runs no workload pods',
    );
    expect(f.message).toContain(
      'Likely trigger: node ip-172-31-38-7.eu-central-1.compute.internal carries taint node.cilium.io/agent-not-ready=true:NoExecute, which NodePool default does not declare in startupTaints',
    );
    const [taint] = evidenceOf(f, 'Node', /^\/spec\/taints\/\d+$/);
    expect(rawValueAt(taint!)).toEqual({ effect: 'NoExecute', key: 'node.cilium.io/agent-not-ready', value: 'true' });
    expectSourceIs(taint!, join(dir, 'nodes.json'));
    expect(f.fix).toContain('kubectl delete nodeclaim default-g7kcw');
    expect(f.evidence.find((e) => e.note?.startsWith('ip-172-31-38-7.eu-central-1.compute.internal: 0 workload pods'))).toBeDefined();
    expect(f.fix).toContain('        startupTaints:\n        - key: node.cilium.io/agent-not-ready\n          value: "true"\n          effect: NoExecute');
  });
});

describe(`${RULE} — fires-v0.36: emptyFor against the reference time`, () => {
  it('the empty node is 22m old at the reference time: emptyFor 30m silences it, 20m does not', async () => {
    const dir = caseDir(RULE, 'fires-v0.36');
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { emptyFor: '30m' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { emptyFor: '20m' } } })).findings).toHaveLength(1);
    expect((await scanRule(RULE, [dir], { now: '2024-06-12T17:44:00Z' })).findings).toEqual([]);
  });
});

describe(`${RULE} — fires-v0.31: v1alpha5 Provisioner/Machine, zap console logs`, () => {
  const dir = caseDir(RULE, 'fires-v0.31');
  it('reads the console records ("created machine", "launched machine", "deprovisioning via emptiness") and reports the Provisioner', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.31.1');
    expect(r.snapshot.referenceTime.iso).toBe('2023-10-18T09:27:51.000Z');
    expect(r.snapshot.logs.length).toBe(12);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name: 'default' });
    expect(f.message).toContain(
      'Provisioner default launched 2 Machines within 10s for the same pending pod(s) orders/mysql-0 (per the logs): default-t4lqs (ap-southeast-2a), default-9pz7c (ap-southeast-2b); default-t4lqs was removed as empty (2023-10-18T09:08:03.517Z).',
    );
    expect(f.message).toContain('Likely trigger: StorageClass gp2 binds Immediately');
    const empty = f.evidence.find((e) => e.note === 'default-t4lqs disrupted as empty')!;
    expect(empty.source).toBe(`${join(dir, 'karpenter-controller.log')}:9`);
    const [machine] = evidenceOf(f, 'Machine', '/metadata/creationTimestamp');
    expectSourceIs(machine!, join(dir, 'karpenter.yaml'));
  });
});

describe(`${RULE} — near-miss: two NodeClaims 20s apart for different pods, both in use`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodeClaim: 3, Node: 3 });
    expect(r.snapshot.logs.length).toBe(4);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — log parser: every generation of the empty-disruption record`, () => {
  const rec = (message: string, fields: Record<string, unknown>) => ({
    time: '2025-08-01T10:00:00.000Z',
    level: 'INFO',
    message,
    fields,
    provenance: { source: 'x.log', line: 1 },
  });
  it('v1.3–v1.8 "disrupting node(s)" with reason empty and disrupted-nodes; v1.9+ command "Empty/…"; v1.0–v1.2; v0.35–v0.37; not drift', async () => {
    const { provisioningLog } = await import('../../src/rules/lib/volumes-health-logs.js');
    const out = provisioningLog([
      rec('disrupting node(s)', {
        reason: 'empty',
        decision: 'delete',
        'disrupted-nodes': [{ Node: { name: 'ip-10-0-1-1.ec2.internal' }, NodeClaim: { name: 'default-aaaaa' } }],
      }),
      rec('disrupting node(s)', { command: 'Empty/4f1c: delete: nodepools=[default]: [ip-10-0-2-2.ec2.internal/m6i.large/on-demand] (savings: $0.10)' }),
      rec('disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods) ip-10-0-3-3.ec2.internal/m6i.large/spot', { reason: 'empty' }),
      rec('disrupting via emptiness delete, terminating 1 nodes (0 pods) ip-10-0-4-4.ec2.internal/m6i.large/spot', {}),
      rec('disrupting node(s)', { reason: 'drifted', 'disrupted-nodes': [{ Node: { name: 'ip-10-0-5-5.ec2.internal' } }] }),
    ]);
    expect(out.emptied.map((e) => e.names)).toEqual([
      ['ip-10-0-1-1.ec2.internal', 'default-aaaaa'],
      ['ip-10-0-2-2.ec2.internal'],
      ['ip-10-0-3-3.ec2.internal'],
      ['ip-10-0-4-4.ec2.internal'],
    ]);
  });
});

describe('duplicate-nodeclaims — near-miss-one-batch: one provisioning batch creates two NodeClaims, one consolidated a day later', () => {
  it('is not a duplicate: one decision places each pod once, and a node removed after a day of work was not empty', async () => {
    const r = await scanRule('duplicate-nodeclaims', [caseDir('duplicate-nodeclaims', 'near-miss-one-batch')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.snapshot.logs.some((l) => l.message === 'computed new nodeclaim(s) to fit pod(s)' && l.fields.nodeclaims === 2)).toBe(true);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'default', pointer: '', severity: 'warning' }],
      message: {
        name: 'default',
        text: 'NodePool default launched 2 NodeClaims within 11s for the same pending pod(s) db/orders-db-0 (per the logs): default-4hd9q (us-west-2a), default-7xk2p (us-west-2c); default-4hd9q was removed as empty (2025-03-04T10:21:14.508Z). Likely trigger: StorageClass gp2 binds Immediately (volumeBindingMode not set) and db/orders-db-0 uses it through data-orders-db-0, so its volume picked a zone while the first node was launching (see rule storageclass-immediate-binding); Karpenter before v1.7.0 provisions before the claim binds.',
      },
    },
    {
      case: 'fires-v0.31',
      findings: [{ kind: 'Provisioner', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-v0.36',
      findings: [{ kind: 'NodePool', name: 'default', pointer: '/spec/template/spec/startupTaints', severity: 'warning' }],
    },
  ],
  nearMiss: [{}, { case: 'near-miss-one-batch' }],
  missing: [{}],
});
