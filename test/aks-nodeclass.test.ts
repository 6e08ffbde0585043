/**
 * Rules that read a NodePool's node class apply EC2NodeClass logic (userData, kubelet reservations, subnets) only to
 * an EC2NodeClass: an Azure NodePool naming an AKSNodeClass is never judged through an EC2NodeClass of the same name.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../src/engine/runner.js';
import type { KubeObject } from '../src/kube/types.js';
import type { LoadResult } from '../src/loaders/types.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';

const ready = { conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2025-06-10T08:00:00Z' }] };

const OBJECTS: KubeObject[] = [
  {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: {
      limits: { cpu: '100' },
      template: { spec: { nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' }, requirements: [], expireAfter: 'Never' } },
    },
  },
  { apiVersion: 'karpenter.azure.com/v1beta1', kind: 'AKSNodeClass', metadata: { name: 'default' }, spec: { imageFamily: 'Ubuntu' }, status: ready },
  // A leftover EC2NodeClass of the same name: its userData registers an agent taint, its kubelet block reserves nothing.
  {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'default' },
    spec: { amiSelectorTerms: [{ alias: 'al2023@latest' }], userData: 'registerWithTaints:\n- key: node.cilium.io/agent-not-ready\n  effect: NoExecute' },
    status: { ...ready, subnets: [{ id: 'subnet-1', zone: 'us-west-2a' }] },
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'aks-default-7xkqp', labels: { 'karpenter.sh/nodepool': 'default', 'topology.kubernetes.io/zone': 'westeurope-1' } },
    spec: { providerID: 'azure:///subscriptions/x/resourceGroups/mc_rg/providers/Microsoft.Compute/virtualMachines/aks-default-7xkqp' },
    status: {
      allocatable: { memory: '14000Mi' },
      capacity: { memory: '16000Mi' },
      conditions: [
        { type: 'MemoryPressure', status: 'True', reason: 'KubeletHasInsufficientMemory', lastTransitionTime: '2025-06-10T09:00:00Z' },
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: '2025-06-10T08:00:00Z' },
      ],
    },
  },
];

function snapshot(): Snapshot {
  const load: LoadResult = {
    objects: OBJECTS.map((o, i) => ({ object: structuredClone(o), provenance: { source: 'aks.yaml', line: i + 1 } })),
    logs: [],
    skipped: [],
    listedKinds: new Set(),
    sources: ['aks.yaml'],
    filesRead: 1,
  };
  return new Snapshot(load, { now: '2025-06-10T10:00:00Z' });
}

describe('an Azure NodePool naming an AKSNodeClass', () => {
  it('is the NodeClass input, resolved: nothing is missing', () => {
    const s = snapshot();
    expect(s.has('NodeClass')).toBe(true);
    expect(runRules(RULES, s, { only: ['nodepool-missing-nodeclass'] }).findings).toEqual([]);
  });

  it('is never read through an EC2NodeClass of the same name', () => {
    const run = runRules(RULES, snapshot());
    expect(run.findings.filter((f) => f.ruleId === 'undeclared-startup-taint')).toEqual([]);
    const memory = run.findings.find((f) => f.ruleId === 'node-memory-pressure')!;
    expect(memory.object.name).toBe('aks-default-7xkqp');
    expect(memory.fix).toContain('in the kubelet settings of AKSNodeClass default');
    for (const f of run.findings) {
      expect(`${f.message} ${f.fix}`).not.toMatch(/EC2NodeClass|ec2nodeclass/);
      expect(f.evidence.filter((e) => e.object?.kind === 'EC2NodeClass')).toEqual([]);
    }
  });
});
