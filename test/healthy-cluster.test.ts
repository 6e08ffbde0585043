import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, scan } from './support/scan.js';

/**
 * A realistic, well-run cluster (fixtures/healthy-cluster, see its README): every rule must stay silent.
 * A finding above `info` here is a false positive of the rule, not a reason to make the cluster less healthy.
 */
const DIR = join(FIXTURES, 'healthy-cluster', 'dump');
type Scan = Awaited<ReturnType<typeof scan>>;

describe('healthy cluster (EKS, Karpenter v1.8.1, 20 nodes, 238 pods)', () => {
  let r: Scan;
  beforeAll(async () => {
    r = await scan([DIR]);
  });

  it('loads everything that was dumped', () => {
    expect(r.report.snapshot.counts).toEqual({
      Node: 20,
      Pod: 238,
      NodeClaim: 18,
      NodePool: 3,
      EC2NodeClass: 1,
      Event: 227,
      DaemonSet: 6,
      Deployment: 26,
      ReplicaSet: 52,
      ReplicationController: 0,
      Service: 23,
      StatefulSet: 1,
      PodDisruptionBudget: 25,
      StorageClass: 2,
      PersistentVolumeClaim: 3,
      PersistentVolume: 3,
    });
    expect(r.report.snapshot.referenceTime).toBe('2025-11-18T15:42:07.000Z');
    expect(r.snapshot.referenceTime.source).toBe('dump');
    expect(r.report.snapshot.karpenterVersion).toBe('1.8.1');
    expect(r.report.snapshot.featureGates).toMatchObject({ NodeRepair: true, SpotToSpotConsolidation: false });
    expect(r.snapshot.logs.length).toBeGreaterThan(90);
    expect(r.report.snapshot.absent).toEqual(['VolumeAttachment']);
  });

  it('holds the near-misses a real healthy cluster has', () => {
    const pools = r.snapshot.nodePools();
    expect(pools.map((p) => p.name).sort()).toEqual(['batch', 'general', 'stateful']);
    // every Karpenter node has its NodeClaim (joined by providerID), all initialized
    expect(r.snapshot.karpenterNodes()).toHaveLength(18);
    for (const node of r.snapshot.karpenterNodes()) expect(node.metadata.labels?.['karpenter.sh/initialized'], node.metadata.name).toBe('true');
    // Karpenter events of a normal hour: a scale-up, a consolidation, a spot interruption, a 30s nomination block
    const reasons = new Set(
      r.snapshot
        .events()
        .filter((e) => e.component === 'karpenter')
        .map((e) => e.reason),
    );
    for (const reason of [
      'Nominated',
      'DisruptionBlocked',
      'DisruptionTerminating',
      'Evicted',
      'SpotInterrupted',
      'TerminatingOnInterruption',
      'Unconsolidatable',
    ]) {
      expect(reasons, reason).toContain(reason);
    }
    // controller logs: provisioning (incl. one batch of two NodeClaims), consolidation, interruption
    const messages = new Set(r.snapshot.logs.map((l) => l.message));
    for (const m of [
      'found provisionable pod(s)',
      'created nodeclaim',
      'launched nodeclaim',
      'disrupting node(s)',
      'initiating delete from interruption message',
      'deleted nodeclaim',
    ]) {
      expect(messages, m).toContain(m);
    }
  });

  it('skips nothing but the logs of pods other than the Karpenter controller (summarised)', () => {
    const skipped = r.report.snapshot.skipped;
    const unexpected = skipped.filter((s) => !/container log\(s\) of pods other than the Karpenter controller not read/.test(s.reason));
    expect(unexpected, JSON.stringify(unexpected, null, 2)).toEqual([]);
    expect(skipped).toHaveLength(1);
  });

  it('evaluates (nearly) every rule; the rest say why not', () => {
    const evaluated = RULES.length - r.notEvaluated.length;
    expect(evaluated).toBeGreaterThanOrEqual(25);
    expect(r.notEvaluated.length).toBeLessThanOrEqual(4);
    for (const n of r.notEvaluated) expect(n.reason, n.ruleId).toMatch(/\S/);
  });

  it('yields no finding above info from any rule', () => {
    const loud = r.findings.filter((f) => f.severity !== 'info');
    const lines = loud.map(
      (f) => `${f.severity} ${f.ruleId} ${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}: ${f.message}`,
    );
    expect(loud.length, `false positives on a healthy cluster:\n${lines.join('\n')}`).toBe(0);
    expect(r.report.summary).toMatchObject({ error: 0, warning: 0 });
  });
});
