/**
 * Compaction (src/loaders/compact.ts) drops fields no rule reads. If a rule starts reading one, its findings on some
 * fixture change when the field is gone: every fixture is scanned with and without compaction, and the reports must be
 * the same. A field a rule needs is then removed from the drop lists in compact.ts, one line.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactObject, setCompaction } from '../src/loaders/compact.js';
import { loadInputs } from '../src/loaders/load.js';
import type { KubeObject } from '../src/kube/types.js';
import { FIXTURES, scan, TEST_CRDS } from './support/scan.js';

const isDir = (p: string) => statSync(p).isDirectory();
const children = (dir: string) => readdirSync(dir).map((n) => join(dir, n));

/** Every case of every rule (near misses too: a dropped field can make a rule fire where it must not), every other fixture. */
function targets(): Array<{ crds: boolean; path: string }> {
  const out: Array<{ crds: boolean; path: string }> = [];
  for (const top of children(FIXTURES).filter(isDir)) {
    if (top.endsWith('/rules')) {
      for (const rule of children(top).filter(isDir))
        for (const kase of children(rule).filter(isDir)) out.push({ crds: rule.endsWith('/karpenter-object-rejected'), path: kase });
    } else out.push({ crds: false, path: top });
  }
  return out;
}

async function report(path: string, crds: boolean, compact: boolean): Promise<string> {
  setCompaction(compact);
  const r = await scan([path], crds ? { crds: TEST_CRDS } : {});
  return JSON.stringify({ findings: r.report.findings, notEvaluated: r.report.notEvaluated });
}

describe('compaction drops nothing a rule reads', () => {
  afterEach(() => setCompaction(true));
  it('every fixture reports the same with and without compaction', { timeout: 600_000 }, async () => {
    const differ: string[] = [];
    for (const { path, crds } of targets()) {
      if ((await report(path, crds, true)) !== (await report(path, crds, false))) differ.push(path.slice(FIXTURES.length));
    }
    expect(differ).toEqual([]);
  });
});

describe('what compaction keeps of a Node and an Event', () => {
  it("drops the kubelet's endpoint, runtime handlers, machine identities and volumes of a Node, and keeps the rest", () => {
    const node = compactObject({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'ip-10-3-7-12.us-west-2.compute.internal', labels: { 'karpenter.sh/nodepool': 'general' } },
      spec: { providerID: 'aws:///us-west-2b/i-0a1b2c3d4e5f60718' },
      status: {
        conditions: [{ type: 'Ready', status: 'False', lastHeartbeatTime: '2026-03-02T10:04:00Z', reason: 'KubeletNotReady' }],
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        images: [{ names: ['registry.example/agent:7'], sizeBytes: 81234 }],
        nodeInfo: { bootID: 'b-1', machineID: 'm-1', systemUUID: 'u-1', kubeletVersion: 'v1.31.4-eks-1a2b3c', architecture: 'arm64' },
        runtimeHandlers: [{ name: 'runc' }],
        volumesAttached: [{ name: 'kubernetes.io/csi/ebs.csi.aws.com^vol-0f1e', devicePath: '' }],
        volumesInUse: ['kubernetes.io/csi/ebs.csi.aws.com^vol-0f1e'],
        allocatable: { cpu: '3920m', pods: '58' },
      },
    } as KubeObject);
    expect(JSON.parse(JSON.stringify(node.status))).toEqual({
      conditions: [{ type: 'Ready', status: 'False', lastHeartbeatTime: '2026-03-02T10:04:00Z', reason: 'KubeletNotReady' }],
      nodeInfo: { kubeletVersion: 'v1.31.4-eks-1a2b3c', architecture: 'arm64' },
      allocatable: { cpu: '3920m', pods: '58' },
    });
    expect(node.spec).toEqual({ providerID: 'aws:///us-west-2b/i-0a1b2c3d4e5f60718' });
  });

  it('keeps what the event views read, in both Event APIs, and loads the same through a file', async () => {
    const core = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-5c7.17a3', namespace: 'shop', uid: 'e-1' },
      involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-5c7', uid: 'p-1', resourceVersion: '88', fieldPath: 'spec.containers{web}' },
      reason: 'FailedScheduling',
      message: '0/4 nodes are available',
      source: { component: 'default-scheduler', host: 'ip-10-3-7-12' },
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-ip-10-3-0-4',
      count: 3,
      firstTimestamp: '2026-03-02T10:00:00Z',
      lastTimestamp: '2026-03-02T10:03:00Z',
      type: 'Warning',
    };
    const v1 = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ip-10-3-7-12.17a4', namespace: 'default' },
      regarding: { kind: 'Node', name: 'ip-10-3-7-12', resourceVersion: '91', fieldPath: '' },
      reason: 'DisruptionBlocked',
      note: 'Pdb prevents pod evictions',
      reportingController: 'karpenter',
      reportingInstance: 'karpenter-6f9-abc',
      deprecatedCount: 2,
      type: 'Normal',
    };
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-compact-'));
    try {
      writeFileSync(join(dir, 'events.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [core, v1] }, null, 4));
      const loaded = (await loadInputs([dir])).objects.map((o) => JSON.parse(JSON.stringify(o.object)) as Record<string, unknown>);
      expect(loaded[0]).toEqual({
        ...core,
        involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web-5c7', uid: 'p-1' },
        source: { component: 'default-scheduler' },
        reportingInstance: undefined,
      });
      expect(loaded[1]).toEqual({ ...v1, regarding: { kind: 'Node', name: 'ip-10-3-7-12' }, reportingInstance: undefined });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
