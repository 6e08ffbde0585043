/**
 * The two spec-only shapes in repository mode (issue 21 item 6): a workload whose pods two PDBs select, and a CNI
 * agent that taints every new node (Cilium) installed next to a NodePool that does not declare the taint.
 * Fixture: `fixtures/repos/platform-addons`.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';
import { summary } from './support/repo-summary.js';

const root = join(FIXTURES, 'repos', 'platform-addons');

describe('a platform repository that installs Cilium and two PDBs over one Deployment', () => {
  it('undeclared-startup-taint: the pool without the Cilium startup taint, citing the DaemonSet and the pool', async () => {
    const r = await scan([root], { only: ['undeclared-startup-taint'] });
    expect(summary(r.findings, root)).toEqual([
      'undeclared-startup-taint warning NodePool general @ addons/cilium/cilium-agent.yaml:5 karpenter/nodepools.yaml:7',
    ]);
    expect(r.findings[0]!.message).toBe(
      'NodePool general does not list agent taint node.cilium.io/agent-not-ready in startupTaints: node.cilium.io/agent-not-ready=true:NoSchedule ' +
        'from DaemonSet cilium (Cilium agent; the Cilium operator taints each new node until it runs there). Karpenter does not expect the taint, ' +
        "so pods that do not tolerate it look unschedulable on the pool's new nodes and Karpenter launches extra NodeClaims for them.",
    );
  });

  it('pdb-blocks-eviction: both PDBs, each naming the other and the Deployment whose pods they share', async () => {
    const r = await scan([root], { only: ['pdb-blocks-eviction'] });
    expect(summary(r.findings, root)).toEqual([
      'pdb-blocks-eviction warning PodDisruptionBudget shop/checkout @ apps/checkout/pdb.yaml:8 apps/checkout/pdb.yaml:20 apps/checkout/deployment.yaml:13',
      'pdb-blocks-eviction warning PodDisruptionBudget shop/frontend-tier @ apps/checkout/pdb.yaml:20 apps/checkout/pdb.yaml:8 apps/checkout/deployment.yaml:13',
    ]);
    expect(r.findings[0]!.message).toContain(
      'the pods of Deployment shop/checkout are also selected by PDB shop/frontend-tier: the Eviction API refuses pods with more than one PDB',
    );
  });

  it('near miss: one PDB over the Deployment and no Cilium agent: silent', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'karpdoctor-addons-'));
    const pdbs = readFileSync(join(root, 'apps', 'checkout', 'pdb.yaml'), 'utf8');
    mkdirSync(join(tmp, 'apps'));
    writeFileSync(join(tmp, 'apps', 'pdb.yaml'), pdbs.slice(0, pdbs.indexOf('---')));
    copyFileSync(join(root, 'apps', 'checkout', 'deployment.yaml'), join(tmp, 'apps', 'deployment.yaml'));
    copyFileSync(join(root, 'karpenter', 'nodepools.yaml'), join(tmp, 'nodepools.yaml'));
    const r = await scan([tmp], { only: ['undeclared-startup-taint', 'pdb-blocks-eviction'] });
    expect(r.report.snapshot.counts).toMatchObject({ PodDisruptionBudget: 1, NodePool: 2, Deployment: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});
