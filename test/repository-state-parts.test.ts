/**
 * Cluster state or desired state per part of the tree (issue 21 item 2): a capture with `status` committed to a
 * repository makes its own folder cluster state, not the whole scan, and the header says which parts were read as which.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/types.js';
import { RULES } from '../src/rules/index.js';
import { readStateParts } from '../src/snapshot/repository.js';
import { FIXTURES, scan } from './support/scan.js';
import { loadAt } from './support/snapshot-of.js';
import { notes, summary } from './support/repo-summary.js';
import { runCli } from './support/fake-apiserver.js';

const ALL = RULES.map((r) => r.meta.id);
const root = join(FIXTURES, 'repos', 'captured-status');

describe('a GitOps repository with one kubectl capture committed', () => {
  it('reads only the capture folder as cluster state and says so in the JSON snapshot metadata', async () => {
    const r = await scan([root], { only: ALL });
    expect(r.snapshot.desiredStateOnly).toBe(true);
    expect(r.report.snapshot.readAs).toEqual({
      desiredState: 'rest',
      clusterState: [{ folder: join(root, 'support', '2025-05-incident'), example: 'NodePool batch' }],
    });
  });

  it('what deploy/ does not hold stays a note, as without the capture', async () => {
    const r = await scan([root], { only: ALL });
    expect(summary(r.findings, root).filter((l) => / error /.test(l))).toEqual([]);
    expect(notes(r, root).filter((n) => n.includes('not in the scanned files'))).toEqual([
      'nodepool-missing-nodeclass: NodePool batch (support/2025-05-incident/nodepool-batch.yaml): EC2NodeClass batch is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing',
      'nodepool-missing-nodeclass: NodePool standard (deploy/karpenter/nodepool.yaml): EC2NodeClass standard is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing',
      'pvc-references-missing-object: PersistentVolumeClaim orders/orders-exports (deploy/apps/orders.yaml): StorageClass ebs-gp3-encrypted is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing',
    ]);
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-capture-'));
    try {
      await cp(join(root, 'deploy'), join(tmp, 'deploy'), { recursive: true });
      const clean = await scan([tmp], { only: ALL });
      expect(clean.findings.map((f) => `${f.ruleId} ${f.object.name}`)).toEqual(r.findings.map((f) => `${f.ruleId} ${f.object.name}`));
      expect(clean.report.snapshot.readAs).toBeUndefined();
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('the terminal header names the capture folder', async () => {
    const r = await runCli(['scan', root, '--no-color']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      `Read as desired state, except captured cluster state in ${join(root, 'support', '2025-05-incident')} (NodePool batch): a capture makes its own folder cluster state, not the rest`,
    );
  });
});

describe('a dump stays cluster state', () => {
  const obj = (kind: string, name: string, extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name }, ...extra });

  it('objects without status in other folders of a dump (ConfigMaps, StorageClasses) do not make it a repository', () => {
    const reading = readStateParts(
      loadAt([
        [obj('Node', 'ip-10-1-2-3', { status: { nodeInfo: { kubeletVersion: 'v1.31.2' } } }), 'dump/nodes/nodes.yaml'],
        [obj('ConfigMap', 'karpenter-global-settings'), 'dump/config/configmaps.yaml'],
      ]),
    );
    expect(reading).toEqual({ desiredState: false, clusterParts: [] });
  });

  it('a Deployment without status beside the capture folder makes the rest desired state', () => {
    const reading = readStateParts(
      loadAt([
        [obj('Node', 'ip-10-1-2-3', { status: { nodeInfo: { kubeletVersion: 'v1.31.2' } } }), 'repo/debug/node.yaml'],
        [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: {} } }, 'repo/apps/web.yaml'],
      ]),
    );
    expect(reading).toEqual({ desiredState: true, clusterParts: [{ folder: 'repo/debug', example: 'Node ip-10-1-2-3' }] });
  });
});
