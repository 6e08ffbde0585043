/**
 * Rules fire on the symptom they can see (issue 20 item 1): where an object shows the symptom itself, the rule runs
 * without the inputs that would only confirm it, says what it could not see, and gives the command that would settle
 * it. Half a symptom (the failure shown, how long it lasted not) is a "stated in the input" line, never a verdict. Unconfirmed, a finding is at most a warning (engine/confirmation.ts).
 */
import { describe, expect, it } from 'vitest';
import { FIXTURES, scanRule } from './support/scan.js';

const symptoms = (name: string) => `${FIXTURES}tickets/symptoms/${name}`;

describe('nodeclass-not-ready on the node class alone', () => {
  it('fires on a described class whose age a get table gives, saying what would confirm it', async () => {
    const r = await scanRule('nodeclass-not-ready', [symptoms('ec2nodeclass-table-and-describe.md')]);
    // The table's AGE (3h12m) and the describe's Creation Timestamp of the same class say when the commands ran.
    expect(r.snapshot.referenceTime).toMatchObject({ iso: '2026-02-10T08:43:07.000Z', source: 'dump', lowerBound: true });
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'EC2NodeClass/pinned']]);
    const [f] = r.findings;
    expect(f!.message).toMatch(/^EC2NodeClass pinned has been Ready=False for 3h11m: AMIsReady=False AMINotFound "AMISelector did not match any AMIs"/);
    expect(f!.message).toContain('Not confirmed: the ticket shows no Nodes or NodeClaims or Events');
    expect(f!.evidence[0]).toMatchObject({ path: '/status/conditions/0', source: expect.stringMatching(/ec2nodeclass-table-and-describe\.md:35$/) });
    expect(r.notEvaluated).toEqual([]);
  });

  it('states the failure, without judging it, when nothing in the paste says how long it has lasted', async () => {
    const r = await scanRule('nodeclass-not-ready', [`${FIXTURES}tickets/describe-ec2nodeclass.txt`]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'nodeclass-not-ready',
        stated: true,
        reason: expect.stringMatching(/^EC2NodeClass standard states SubnetsReady=False SubnetsNotFound "SubnetSelector did not match any Subnets"/),
      },
    ]);
  });

  it('states a READY False row of a get table, which shows neither since when nor why', async () => {
    const r = await scanRule('nodeclass-not-ready', [symptoms('ec2nodeclass-table-only.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'nodeclass-not-ready',
        stated: true,
        reason:
          'EC2NodeClass batch shows Ready=False, but not since when or which condition fails, so it is not a finding yet: kubectl describe ec2nodeclass batch shows both.',
      },
    ]);
  });

  it('fires on the described class of a get table, and states the undescribed one of the same table', async () => {
    const r = await scanRule('nodeclass-not-ready', [symptoms('ec2nodeclasses-two-not-ready.md')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'EC2NodeClass/arm64']]);
    expect(r.findings[0]!.message).toMatch(
      /^EC2NodeClass arm64 has been Ready=False for 7h18m: SecurityGroupsReady=False SecurityGroupsNotFound "SecurityGroupSelector did not match any SecurityGroups"\./,
    );
    expect(r.findings[0]!.message).toContain('Not confirmed: the ticket shows no Nodes or NodeClaims or Events');
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'nodeclass-not-ready',
        stated: true,
        reason: expect.stringMatching(/^EC2NodeClass x86 shows Ready=False, but not since when or which condition fails/),
      },
    ]);
  });

  it('still needs cluster state in a repository: a manifest without status shows no symptom', async () => {
    const r = await scanRule('nodeclass-not-ready', [`${FIXTURES}rules/nodeclass-not-ready/missing`]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated.map((n) => n.missing)).toEqual([['Node', 'NodeClaim', 'Event']]);
  });
});

describe('nodepool-limits-reached on the pool and a Pending pod', () => {
  it('fires on the pool status at its limit with no Nodes, NodeClaims or Events in the input', async () => {
    const r = await scanRule('nodepool-limits-reached', [symptoms('nodepool-at-limit-pending-pod.md')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodePool/builders']]);
    expect(r.findings[0]!.message).toContain('has reached its limits (cpu 48 of 48)');
    expect(r.findings[0]!.message).toContain('Not confirmed: the ticket shows no Nodes or NodeClaims or Events');
  });

  it('is not evaluated when the pool is under its limit: nothing but the confirming inputs could show more', async () => {
    const under = await scanRule('nodepool-limits-reached', [symptoms('nodepool-under-limit-pending-pod.md')]);
    expect(under.findings).toEqual([]);
    expect(under.notEvaluated.map((n) => n.missing)).toEqual([['Node', 'NodeClaim', 'Event']]);
  });
});

describe('node-stuck-draining on the drain events alone', () => {
  const NODE = 'ip-10-81-44-17.us-east-2.compute.internal';

  it('fires when the drain failures span longer than the threshold, saying the pods are not in the input', async () => {
    const r = await scanRule('node-stuck-draining', [symptoms('drain-events-long.txt')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`, f.recordsOnly?.basis])).toEqual([['warning', `Node/${NODE}`, 'events']]);
    const [f] = r.findings;
    // The get table's rows and the describe's Events table are one event each: 880 + 1311 FailedDraining occurrences
    // (the 212 DisruptionBlocked "marked for deletion" say the node is going, not that its drain failed).
    expect(f).toMatchObject({ messageId: 'statedStuckDrainingRefused', data: { occurrences: 2191, pods: 'pod search/opensearch-data-1' } });
    expect(f!.message).toContain(
      'They name what holds it: a PodDisruptionBudget refuses the eviction of pod search/opensearch-data-1. Any other pods on it are not in the input.',
    );
    expect(f!.recordsOnly!.confirmWith).toContain(`kubectl get pods -A -o wide --field-selector spec.nodeName=${NODE}`);
    expect(f!.evidence.map((e) => e.value)).toEqual([
      expect.stringContaining('FailedDraining: Failed to drain node, 3 pods are waiting to be evicted (x880'),
      expect.stringContaining('FailedDraining: Failed to drain node, evicting pod search/opensearch-data-1 violates a PDB (x1311'),
    ]);
    expect(r.notEvaluated).toEqual([]);
  });

  it('states a drain failing for less than the threshold (a drain in progress), without judging it', async () => {
    const r = await scanRule('node-stuck-draining', [symptoms('drain-events-short.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'node-stuck-draining',
        stated: true,
        reason: expect.stringMatching(
          /^Node ip-10-81-52-9\.us-east-2\.compute\.internal: its events show the drain failing for 0s \(once; .*not longer than the 30m a drain may take/,
        ),
      },
    ]);
  });

  it('does not count "marked for deletion" as a failing drain, even under a lower threshold', async () => {
    // The DisruptionBlocked row 6m old says the node is going (a candidate skipped), not that its drain failed then:
    // the only drain row is one FailedDraining, so no span reaches even 3m.
    const r = await scanRule('node-stuck-draining', [symptoms('drain-events-short.txt')], { options: { 'node-stuck-draining': { threshold: '3m' } } });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([expect.stringMatching(/drain failing for 0s \(once;/)]);
  });
});

describe('node-unhealthy-not-repaired on a cut describe and a get row', () => {
  const NODE = 'ip-10-20-140-9.eu-north-1.compute.internal';

  it('fires at warning when the rows above Ready say the kubelet stopped posting status longer ago than the toleration', async () => {
    const r = await scanRule('node-unhealthy-not-repaired', [symptoms('node-notready-describe-cut.md')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', `Node/${NODE}`]]);
    const [f] = r.findings;
    expect(f).toMatchObject({ messageId: 'readyUnseen', data: { node: NODE, condition: 'MemoryPressure', since: 'for at least 19h25m' } });
    expect(f!.message).toContain(`Node ${NODE} has had MemoryPressure=Unknown (Kubelet stopped posting node status.) for at least 19h25m`);
    expect(f!.message).toContain('its Ready row is not in the input');
    expect(f!.message).toContain(`Confirm with kubectl describe node ${NODE} (Conditions: Ready)`);
    expect(f!.evidence[0]).toMatchObject({ path: '/status/conditions/0', source: expect.stringMatching(/node-notready-describe-cut\.md:31$/) });
    expect(r.run.notEvaluatedFor).toEqual([]);
  });

  it('does not fire when the rows above Ready went Unknown within the toleration', async () => {
    const r = await scanRule('node-unhealthy-not-repaired', [symptoms('node-notready-describe-cut.md')], { now: '2025-06-09T02:05:00Z' });
    expect(r.findings).toEqual([]);
  });

  it('states a NotReady row of kubectl get nodes, which shows neither since when nor why', async () => {
    const r = await scanRule('node-unhealthy-not-repaired', [symptoms('node-notready-row-only.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'node-unhealthy-not-repaired',
        stated: true,
        reason: expect.stringMatching(
          new RegExp(
            `^Node ${NODE.replace(/\./g, '\\.')} is NotReady in a \`kubectl get nodes\` table, which shows neither since when nor why, nor whether Karpenter manages it`,
          ),
        ),
      },
    ]);
  });
});

describe('a NodeClaim that shows its registration failing, without Nodes in the input', () => {
  it('unregistered-taint-problem: Registered=False UnregisteredTaintNotFound and its transition event', async () => {
    const r = await scanRule('unregistered-taint-problem', [symptoms('nodeclaim-registered-false-taint.md')]);
    expect(r.snapshot.has('Node')).toBe(false);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodeClaim/bottlerocket-spot-8xq2m']]);
    const [f] = r.findings;
    // The paste's latest time is the transition itself: since when, not "for 0s".
    expect(f!.message).toContain('Registered=False (UnregisteredTaintNotFound) since 2025-01-21T10:04:18Z, 1 Registered event(s)');
    expect(f!.evidence.map((e) => (e.object?.kind === 'Event' ? e.value : e.path))).toEqual([
      '/status/conditions/1',
      expect.stringContaining('Reason: UnregisteredTaintNotFound, Message: Invalid Node, karpenter.sh/unregistered taint not found on node'),
    ]);
  });

  it('nodeclaim-not-registered: Registered=Unknown NodeNotFound for 40m, its age given by a get table', async () => {
    const r = await scanRule('nodeclaim-not-registered', [symptoms('nodeclaim-not-registered-describe.md')]);
    expect(r.snapshot.has('Node')).toBe(false);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodePool/general-arm']]);
    expect(r.findings[0]!.message).toMatch(
      /^NodeClaim general-arm-5kq7w launched at 2025-03-04T10:02:39Z and not registered for at least 40m \(Registered=Unknown NodeNotFound: "Node not registered with cluster"\)\. Its NodePool general-arm is not in the input\./,
    );
  });

  it('nodeclaim-not-registered: the same claim 14m after launch is not judged (the timeout is 15m)', async () => {
    const r = await scanRule('nodeclaim-not-registered', [symptoms('nodeclaim-not-registered-describe.md')], { now: '2025-03-04T10:16:40Z' });
    expect(r.findings).toEqual([]);
  });

  it('nodeclaim-not-registered leaves the missing taint to unregistered-taint-problem: one diagnosis', async () => {
    const r = await scanRule('nodeclaim-not-registered', [symptoms('nodeclaim-registered-false-taint.md')]);
    expect(r.findings).toEqual([]);
  });
});

describe("volume rules on a Pending pod's events alone", () => {
  it('pv-zone-unreachable: "volume node affinity conflict" for 56m, alternating with Karpenter\'s nominations, at warning', async () => {
    const r = await scanRule('pv-zone-unreachable', [symptoms('pod-pending-volume-conflict.txt')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.namespace}/${f.object.name}`, f.recordsOnly?.basis])).toEqual([
      ['warning', 'Pod/db/pg-main-0', 'events'],
    ]);
    const [f] = r.findings;
    expect(f!.message).toMatch(/^Pod db\/pg-main-0 has been Pending with "volume node affinity conflict" for 56m \(31 times between/);
    expect(f!.message).toContain('while Karpenter nominated it for a node 9 times and kube-scheduler still refused');
    expect(f!.message).toContain('No PersistentVolumes or PersistentVolumeClaims or NodePools are in the input, so which zone its volume is pinned to');
    expect(f!.recordsOnly!.confirmWith).toBe('kubectl get pv -o yaml and kubectl get pvc -A -o yaml and kubectl get nodepools -o yaml');
    expect(r.notEvaluated).toEqual([]);
  });

  it('pv-zone-unreachable: a conflict shorter than conflictFor is stated, not judged', async () => {
    const r = await scanRule('pv-zone-unreachable', [symptoms('pod-pending-volume-conflict.txt')], {
      options: { 'pv-zone-unreachable': { conflictFor: '2h' } },
    });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'pv-zone-unreachable',
        stated: true,
        reason: expect.stringMatching(
          /^Pod db\/pg-main-0: kube-scheduler reported "volume node affinity conflict" 31 times .* over 56m; not a finding while that is not longer than 2h/,
        ),
      },
    ]);
  });

  it('pvc-references-missing-object: kube-scheduler names a claim that does not exist, 41 times over 3h', async () => {
    const r = await scanRule('pvc-references-missing-object', [symptoms('pod-pending-pvc-not-found.txt')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.namespace}/${f.object.name}`, f.recordsOnly?.basis])).toEqual([
      ['warning', 'PersistentVolumeClaim/metrics/wal-ingester-2', 'events'],
    ]);
    expect(r.findings[0]!.message).toMatch(
      /^PersistentVolumeClaim metrics\/wal-ingester-2, which Pod metrics\/ingester-2 mounts, does not exist: kube-scheduler said so 41 times/,
    );
    expect(r.findings[0]!.recordsOnly!.confirmWith).toBe('kubectl -n metrics get pvc -o yaml');
  });

  it('pvc-references-missing-object: said once (a race with the claim being created) is stated, not judged', async () => {
    const r = await scanRule('pvc-references-missing-object', [symptoms('pod-pending-pvc-not-found-once.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'pvc-references-missing-object',
        stated: true,
        reason: expect.stringMatching(
          /^Pod metrics\/ingester-2 mounts PersistentVolumeClaim metrics\/wal-ingester-2, which did not exist once .*once may be a race/,
        ),
      },
    ]);
  });
});

describe("nodepool-missing-nodeclass on the pool's own condition", () => {
  it('fires on NodeClassReady=False NodeClassNotFound with no node classes in the input, saying what would confirm it', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [symptoms('nodepool-nodeclass-not-found.md')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodePool/gpu']]);
    expect(r.findings[0]!.message).toMatch(
      /^NodePool gpu reports NodeClassReady=False since 2025-05-21T16:40:03Z: its EC2NodeClass ml-gpu does not exist on the cluster/,
    );
    expect(r.findings[0]!.message).toContain('Not confirmed: the ticket shows no node classes (EC2NodeClass, AKSNodeClass)');
    expect(r.notEvaluated).toEqual([]);
  });

  it('is not evaluated when the pool says its node class is Ready: only the node classes could show more', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [symptoms('nodepool-nodeclass-ready.md')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated.map((n) => n.missing)).toEqual([['NodeClass']]);
  });
});

describe('startup-taint-not-removed on the node alone', () => {
  const NODE = 'ip-10-30-71-18.ap-northeast-1.compute.internal';

  it("fires at warning on a node agent's taint and no initialized label 3h7m after creation, without NodeClaims", async () => {
    const r = await scanRule('startup-taint-not-removed', [symptoms('node-startup-taint-describe.md')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', `Node/${NODE}`]]);
    const [f] = r.findings;
    expect(f!.message).toContain(
      `Node ${NODE} still carries startup taint node.cilium.io/agent-not-ready=true:NoExecute 3h7m after it was created and has no karpenter.sh/initialized label`,
    );
    expect(f!.message).toContain('Its NodeClaim is not in the input');
    expect(f!.message).toContain('Not confirmed: the ticket shows no NodeClaims');
    expect(f!.evidence.map((e) => e.path)).toEqual(['/spec/taints/0', '/metadata/labels']);
  });

  it('is not evaluated when the node is initialized: the taint is then an ordinary one, and only the NodeClaim could say more', async () => {
    const r = await scanRule('startup-taint-not-removed', [symptoms('node-startup-taint-initialized.md')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated.map((n) => n.missing)).toEqual([['NodeClaim']]);
  });
});

describe('a console record the terminal cut at its width, mid-word', () => {
  it('is joined before matching: the provisioner\'s "exceed limits" record names its Provisioner', async () => {
    const r = await scanRule('nodepool-limits-reached', [symptoms('logs-terminal-wrapped-limits-v0.31.txt')]);
    expect(r.load.logs.map((l) => [l.provenance.line, l.message, l.fields.pod])).toEqual([
      [4, 'Could not schedule pod, all available instance types exceed limits for provisioner: "ci-runners"', 'gitlab/runner-k7p2x-project-88-concurrent-0'],
      [7, 'Could not schedule pod, all available instance types exceed limits for provisioner: "ci-runners"', 'gitlab/runner-k7p2x-project-88-concurrent-1'],
    ]);
    expect(r.load.skipped.map((s) => s.reason)).toEqual(['prose (1 paragraph), not objects or logs']);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`, f.recordsOnly?.basis])).toEqual([
      ['warning', 'Provisioner/ci-runners', 'logs'],
    ]);
  });
});
