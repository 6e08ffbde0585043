/**
 * Objects with only `generateName` (an export that dropped metadata.name): each stays its own object, every message,
 * fix and evidence names it by its generateName and says it has no name, commands get a placeholder instead of
 * "undefined", and the CI gate's fingerprints tell two such objects apart by their place in the file.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldLocator } from '../src/cli/field-locations.js';
import { buildGate } from '../src/engine/gate.js';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, scan } from './support/scan.js';

const DIR = join(FIXTURES, 'unnamed-objects');
const FILE = join(DIR, 'cluster.yaml');
const run = () => scan([DIR], { now: '2025-06-10T10:30:00Z' });
const BARE_POD =
  'Pod finance/adhoc-report-… (generateName only, no name) has no controller (no ownerReferences) and runs on Karpenter node ip-10-4-17-90.us-east-1.compute.internal ' +
  'of NodePool batch: consolidation (WhenEmptyOrUnderutilized, consolidateAfter 5m), drift (a NodePool or EC2NodeClass change, a new AMI), expiry (expireAfter 168h, in 6d20h) ' +
  'will evict it and nothing will recreate it. (version unknown: assumes v0.19 or later (bare pods are evicted, not refused))';

describe('objects that have only a generateName', () => {
  it('are never merged: two NodeClaims and two Pods of one generateName each stay their own', async () => {
    const r = await run();
    expect(r.report.snapshot.counts).toMatchObject({ NodeClaim: 2, Pod: 4, Node: 1, NodePool: 1 });
  });

  it('are named by generateName in every message and fix, with a placeholder in commands, never "undefined"', async () => {
    const r = await run();
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['nodeclaim-not-registered', 'NodePool', null, 'batch'],
      ['pending-pod-no-nodepool-fits', 'Pod', 'shop', 'api-5c8f7d9b6-'],
      ['pod-do-not-disrupt-blocks-node', 'Node', null, 'ip-10-4-17-90.us-east-1.compute.internal'],
      ['bare-pod-on-disruptable-node', 'Pod', 'finance', 'adhoc-report-'],
      ['bare-pod-on-disruptable-node', 'Pod', 'finance', 'adhoc-report-'],
    ]);
    const [registered, pending, dnd, bare1, bare2] = r.findings;
    expect(registered!.message).toBe(
      'NodePool batch: instances launch but never join the cluster — 2 NodeClaims launched but not registered for up to 57m ' +
        '(batch-… (generateName only, no name), batch-… (generateName only, no name)). Each NodeClaim is deleted 15m after launch and replaced by another ' +
        'that fails the same way: instances are paid for and pods stay Pending.',
    );
    expect(registered!.evidence.map((e) => [e.object?.name, e.source])).toEqual([
      ['batch-', `${FILE}:59`],
      ['batch-', `${FILE}:59`],
      ['batch-', `${FILE}:88`],
      ['batch-', `${FILE}:88`],
    ]);
    expect(pending!.message).toBe(
      'Pod shop/api-5c8f7d9b6-… (generateName only, no name) has been Pending for 1h10m and no NodePool can host it — ' +
        'NodePool batch: requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64.',
    );
    expect(pending!.fix).toContain('1. Select what batch offers in Pod api-5c8f7d9b6-… (generateName only, no name):');
    expect(dnd!.message).toBe(
      'Karpenter node ip-10-4-17-90.us-east-1.compute.internal cannot be consolidated, emptied or drifted while it runs 1 pod annotated do-not-disrupt: ' +
        'finance/ledger-sync-… (generateName only, no name) (Job ledger-sync-29154120).',
    );
    expect(dnd!.fix.split('\n')[0]).toBe(
      '1. If finance/ledger-sync-… (generateName only, no name) can be interrupted now: kubectl -n finance annotate pod <ledger-sync-…> karpenter.sh/do-not-disrupt-',
    );
    for (const bare of [bare1!, bare2!]) {
      expect(bare.message).toBe(BARE_POD);
      expect(bare.fix).toBe(
        '1. Run it under a controller instead (e.g. kubectl -n finance get pod <adhoc-report-…> -o yaml > pod.yaml, then wrap its spec in a Deployment or Job).\n' +
          '2. Or, if it must finish where it is: kubectl -n finance annotate pod <adhoc-report-…> karpenter.sh/do-not-disrupt=true',
      );
    }
    // Each of the two bare pods cites its own document.
    expect([bare1!, bare2!].map((f) => f.evidence[0]!.source)).toEqual([`${FILE}:117`, `${FILE}:135`]);
    expect(JSON.stringify({ findings: r.findings, notEvaluated: r.notEvaluated })).not.toContain('undefined');
  });

  it('get distinct fingerprints (file and line), the same on every run', async () => {
    const fingerprints = async () => {
      const r = await run();
      const gate = buildGate({
        findings: r.findings,
        snapshot: r.snapshot,
        evaluated: new Set(RULES.map((x) => x.meta.id)),
        knownRules: new Set(RULES.map((x) => x.meta.id)),
        inlineSuppressions: false,
        locate: fieldLocator(r.snapshot),
      });
      return gate.findings.filter((g) => g.finding.ruleId === 'bare-pod-on-disruptable-node').map((g) => g.fingerprint);
    };
    const first = await fingerprints();
    expect(first).toHaveLength(2);
    expect(new Set(first).size).toBe(2);
    expect(await fingerprints()).toEqual(first);
  });
});
