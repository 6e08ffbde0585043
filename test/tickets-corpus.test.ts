/**
 * The corpus of pasted tickets (fixtures/tickets/corpus/README.md): shapes met in public Karpenter issue threads,
 * rebuilt with our own names and values. Each is scanned whole, as a support engineer would, and this table says
 * what a person reads in it — the objects (partial or not), the events, the log records and their pod, what is
 * skipped and why, the kinds the text shows to be empty — and the exact findings: the cause the text states, or
 * none where it states none. `now` stands for when the ticket was written (most pastes show only ages).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, findingLabel, scan } from './support/scan.js';

const NOW = '2026-02-01T00:00:00Z';
const corpus = (name: string) => join(FIXTURES, 'tickets', 'corpus', name);

interface Case {
  file: string;
  /** `Kind ns/name (partial) @line` of every object but Events. */
  objects?: string[];
  /** `Reason Kind/name xCount` of every event. */
  events?: string[];
  /** `@line LEVEL [ns/pod/container] message…` of every record (the message cut at 40 characters). */
  logs?: string[];
  /** `line reason` of every skip; the prose paragraph count is part of it. */
  skipped: string[];
  /** Kinds listed, empty lists included (`No resources found`). */
  listed?: string[];
  /** `rule Kind ns/name`, `(records)` when from logs or events only. */
  findings: string[];
  /** Words each finding's message must hold: the cause in the text's own terms. */
  cause?: RegExp;
  /** `rule reason` of what the input states without a finding (half a symptom), when the case shows one. */
  stated?: RegExp[];
}

const CASES: Case[] = [
  {
    file: 'k9s-describe-node-pdb.txt',
    objects: ['Node ip-10-61-14-203.us-east-2.compute.internal (partial) @5'],
    events: ['Unconsolidatable Node/ip-10-61-14-203.us-east-2.compute.internal x92', 'DisruptionBlocked Node/ip-10-61-14-203.us-east-2.compute.internal x1'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['pdb-blocks-eviction PodDisruptionBudget web/storefront-pdb (records)'],
    cause: /storefront-pdb.*prevents pod evictions/,
  },
  {
    file: 'events-rows-no-header.md',
    events: [
      'DisruptionBlocked Node/ip-10-88-201-17.ap-southeast-2.compute.internal x1',
      'DisruptionBlocked NodeClaim/apps-7wq2d x1',
      'DisruptionBlocked Node/ip-10-88-164-230.ap-southeast-2.compute.internal x1',
      'DisruptionBlocked NodeClaim/apps-k5r8x x1',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['pdb-blocks-eviction PodDisruptionBudget kube-system/csi-controller (records)'],
    cause: /2 times.*PDB "kube-system\/csi-controller" prevents pod evictions/,
  },
  {
    file: 'eventrouter-json.md',
    events: [
      'DisruptionBlocked Node/ip-172-20-9-41.eu-west-1.compute.internal x1',
      'DisruptionBlocked NodeClaim/ci-runners-p7tzm x1',
      'DisruptionBlocked Node/ip-172-20-9-41.eu-west-1.compute.internal x1',
    ],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['pod-do-not-disrupt-blocks-node Pod ci/build-runner-5c8k2 (records)'],
    cause: /do-not-disrupt.*2 times between 2024-05-14T08:02:11Z and 2024-05-14T08:07:40Z/,
  },
  {
    file: 'stern-bracket-v0.34.txt',
    logs: [
      '@3 INFO [kube-system/karpenter-5d9b7c8f4-tq6zw/controller] no nodepools found',
      '@4 ERROR [kube-system/karpenter-5d9b7c8f4-tq6zw/controller] listing instance types for batch-amd64, ',
      '@5 ERROR [kube-system/karpenter-5d9b7c8f4-tq6zw/controller] check failed, can\'t drain node, PDB "pay',
      '@6 INFO [kube-system/karpenter-5d9b7c8f4-tq6zw/controller] no nodepools found',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    // The EC2NodeClass is being deleted; the PDB that holds its last node is named only in a consistency check, not a drain.
    findings: ['nodepool-missing-nodeclass NodePool batch-amd64 (records)'],
    cause: /EC2NodeClass batch-amd64 is terminating once/,
  },
  {
    file: 'console-tabs-as-spaces-v0.30.md',
    logs: [
      '@4 DEBUG 12 out of 655 instance types were exclud',
      '@5 ERROR Could not schedule pod, incompatible wit',
      '@6 ERROR Could not schedule pod, incompatible wit',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['nodepool-limits-reached Provisioner analytics (records)'],
    cause: /exceed limits for provisioner: "analytics"/,
  },
  {
    file: 'gh-issue-view.json',
    objects: ['NodePool etl-batch @4'],
    logs: ['@13 INFO found provisionable pod(s)', '@14 ERROR could not schedule pod', '@15 ERROR could not schedule pod'],
    skipped: [
      'gh-issue-view.json (body):1 prose (5 paragraphs), not objects or logs',
      'gh-issue-view.json (comment 1 by maint-bot-free):1 prose (1 paragraph), not objects or logs',
      'gh-issue-view.json (comment 2 by oriane-k):1 prose (1 paragraph), not objects or logs',
    ],
    listed: ['karpenter.sh/NodePool'],
    // The pool is pasted whole but no Pending pod is: the limits are judged on what the controller said.
    findings: ['nodepool-limits-reached NodePool etl-batch (records)'],
    cause: /2 times .*exceed limits for nodepool: "etl-batch"/,
  },
  {
    file: 'kubectl-logs-pod-ice.md',
    logs: [9, 10, 11, 12, 13, 14].map(
      (n, i) =>
        `@${n - 1} ${i % 2 ? 'ERROR' : 'INFO'} [karpenter/karpenter-6b7c9d5f8-x2v4p/controller] ${i % 2 ? 'failed launching nodeclaim' : 'created nodeclaim'}`,
    ),
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['insufficient-capacity-all-offerings NodePool gpu-spot', 'nodeclaim-launch-loop NodePool gpu-spot'],
    cause: /gpu-spot/,
  },
  {
    file: 'no-resources-found.md',
    logs: ['@11 DEBUG terminating due to registration ttl', '@12 DEBUG terminating due to registration ttl'],
    skipped: [
      '5 kubectl found nothing matching the selector of `kubectl get node -l "karpenter.sh/nodepool"` (others of that kind may exist), not read',
      '13 shell commands, not read',
      '16 a sh code block, not read',
      '1 prose (2 paragraphs), not objects or logs',
    ],
    // `kubectl get nodeclaims` answered "No resources found": none exist; `kubectl get pdb -n ledger`: none in ledger.
    listed: ['karpenter.sh/NodeClaim', 'policy/PodDisruptionBudget@ledger'],
    findings: ['nodeclaim-not-registered NodeClaim apps-6xw2b (records)', 'nodeclaim-not-registered NodeClaim apps-r4n9k (records)'],
    cause: /never joined the cluster.*registration ttl/,
  },
  {
    file: 'tab-indented-nodepool.txt',
    objects: ['NodePool overnight @16'],
    logs: ['@5 ERROR detected disruption budget errors'],
    skipped: ['1 prose (5 paragraphs), not objects or logs'],
    listed: ['karpenter.sh/NodePool'],
    findings: ['disruption-budget-blocks-all NodePool overnight', 'nodepool-without-limits NodePool overnight'],
    cause: /"30 7 \* \* 1-7" is not a valid cron expression|no spec\.limits/,
  },
  {
    file: 'describe-nodeclaim-in-yaml-fence.md',
    objects: ['NodeClaim arm-general-h8c2v (partial) @7'],
    events: ['Launched NodeClaim/arm-general-h8c2v x1', 'Registered NodeClaim/arm-general-h8c2v x1'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim arm-general-h8c2v'],
    cause: /UnregisteredTaintNotFound/,
  },
  {
    file: 'describe-nodeclaim-crlf.txt',
    objects: ['NodeClaim system-5vq8d (partial) @3'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    // Registered is Unknown since the launch, long before `now`: the node never joined (no cause behind it is stated).
    // Its NodePool is named by the claim's label but not pasted: the finding is on that pool.
    findings: ['nodeclaim-not-registered NodePool system'],
    cause:
      /NodeClaim system-5vq8d launched at 2024-10-18T07:44:05Z and not registered .*Registered=Unknown AwaitingReconciliation.*Its NodePool system is not in the input/,
  },
  {
    file: 'describe-conditions-only.md',
    // Only the Conditions of a described NodeClaim and two Status fields: no Name line, no command, the first line
    // at the margin and the rest indented as describe printed them.
    objects: ['NodeClaim (no name) (partial) @6'],
    skipped: ['1 prose (5 paragraphs), not objects or logs'],
    findings: ['nodeclaim-not-registered NodeClaim (no name)'],
    cause: /launched at 2025-03-09T16:41:55Z and not registered .*Registered=Unknown NodeNotFound/,
  },
  {
    file: 'describe-machine-cut-mid-word.md',
    // The copy began mid-word (`onditions:`): a v1alpha5 Machine by its condition types, its Events line kept with it.
    objects: ['Machine (no name) (partial) @4'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['nodeclaim-not-registered Machine (no name)'],
    cause: /^Machine \(name not shown\) launched at 2023-11-20T09:41:03Z and not registered .*Registered=False NodeNotFound/,
  },
  {
    file: 'describe-pod-tail-in-bash-fence.md',
    // The end of a Pod's description in a ```bash fence, cut inside its container's Environment: the Pod is known by
    // its QoS Class, Node-Selectors and Tolerations; its Events state the cause in Karpenter's words.
    objects: ['Pod (no name) (partial) @4'],
    events: ['FailedScheduling Pod/ x14', 'NotTriggerScaleUp Pod/ x1', 'FailedScheduling Pod/ x9'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['pending-pod-no-nodepool-fits Pod (no name) (records)'],
    cause: /^Pod \(name not shown\) fits no NodePool: NodePool render: incompatible requirements, key topology\.kubernetes\.io\/zone/,
  },
  {
    file: 'describe-pod-inline-command.md',
    // `kubectl describe pod NAME -n NS` as inline code on its own line, the output pasted from `Conditions:` on.
    objects: ['Pod kube-system/karpenter-6b7d9f8c5-m4zq2 (partial) @4'],
    events: ['Unhealthy Pod/karpenter-6b7d9f8c5-m4zq2 x12'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: [],
  },
  {
    file: 'inline-code-record.md',
    objects: ['NodePool night-shift @6'],
    logs: ['@36 ERROR detected disruption budget errors'],
    skipped: ['1 prose (6 paragraphs), not objects or logs'],
    // The log's "invalid cron" is the object's sat-sun range, which robfig/cron refuses: one finding, from the object.
    findings: ['disruption-budget-blocks-all NodePool night-shift', 'nodepool-without-limits NodePool night-shift'],
    cause: /"0 0 \* \* sat-sun" is not a valid cron expression|no spec\.limits/,
  },
  {
    file: 'get-events-wide-budget.txt',
    // `| yq .spec.disruption` under `get nodepool linux-arm64 -o yaml`: that field of the pool, the rest unknown.
    objects: ['NodePool linux-arm64 (partial) @10'],
    events: ['DisruptionBlocked NodePool/linux-arm64 x38', 'DisruptionBlocked NodePool/linux-arm64 x12', 'DisruptionBlocked NodePool/linux-arm64 x9'],
    skipped: ['7 prose (1 paragraph), not objects or logs'],
    findings: [
      'disruption-budget-blocks-all NodePool linux-arm64 (records)',
      'disruption-budget-blocks-all NodePool linux-arm64 (records)',
      'disruption-budget-blocks-all NodePool linux-arm64 (records)',
    ],
    cause: /allowed no (Underutilized|Empty|Drifted) disruption/,
  },
  {
    file: 'alert-notification.txt',
    events: ['FailedDraining Node/ip-10-0-37-118.ec2.internal x1', 'FailedDraining Node/ip-10-0-37-118.ec2.internal x1'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    // Two notifications without a time: the drain failed, for how long is not shown — stated, not judged.
    findings: [],
    stated: [
      /^node-stuck-draining Node ip-10-0-37-118\.ec2\.internal: its events show the drain failing \(2 times in the rows shown; last "FailedDraining: Failed to drain node, 3 pods are waiting to be evicted"\)\. Not a finding: the input shows no times/,
    ],
  },
  {
    file: 'zsh-prompt-pods-terminating.txt',
    objects: [
      'Pod calico-system/calico-node-q7d2k (partial) @5',
      'Pod cert-manager/cert-manager-7d4b8c9f6d-w2x5z (partial) @6',
      'Pod kube-system/kube-proxy-9hmlp (partial) @7',
      'Pod orders/orders-api-5f6c7d8b9-k3j8q (partial) @8',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    file: 'k9s-wrapped-log-webhook.txt',
    logs: ['@4 ERROR k8s.io/client-go@v0.30.3/tools/cache/ref', '@7 ERROR k8s.io/client-go@v0.30.3/tools/cache/ref'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    // Nothing names the controller (the prose says another namespace than the webhook URL): each CRD the records name.
    findings: [
      'karpenter-api-version-mismatch CustomResourceDefinition nodeclaims.karpenter.sh',
      'karpenter-api-version-mismatch CustomResourceDefinition nodepools.karpenter.sh',
    ],
    cause: /the CRD conversion webhook fails \(Node(Pool|Claim)\)/,
  },
  {
    file: 'details-summary-logs.md',
    // The sentence's code span is the controller's start-up error quoted alone: a record of unknown time, beside the log.
    logs: [
      '@7 ERROR custom resource "nodeclaims.karpenter.sh',
      '@13 INFO Starting EventSource',
      '@14 INFO Starting Controller',
      '@15 ERROR Reconciler error',
      '@16 ERROR Reconciler error',
    ],
    skipped: ['1 prose (7 paragraphs), not objects or logs'],
    findings: ['karpenter-api-version-mismatch CustomResourceDefinition nodeclaims.karpenter.sh'],
    cause: /lack the conversion webhook/,
  },
  {
    file: 'copy-code-artifact.txt',
    logs: ['@5 INFO created nodeclaim', '@6 ERROR failed launching nodeclaim'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['launch-refused-by-cloud-provider NodePool workers'],
    cause: /not authorised/,
  },
  {
    file: 'bash-get-and-describe-ec2nodeclass.md',
    objects: ['EC2NodeClass general (partial) @6', 'EC2NodeClass ci-runners (partial) @7', 'EC2NodeClass general (partial) @10'],
    events: ['Failed EC2NodeClass/general x1'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    // The undescribed class's READY False row shows neither since when nor why: stated, not judged.
    findings: ['nodeclass-not-ready EC2NodeClass general'],
    cause: /Ready=False/,
    stated: [/^nodeclass-not-ready EC2NodeClass ci-runners shows Ready=False, but not since when or which condition fails/],
  },
  {
    file: 'describe-events-wrapped-message.txt',
    events: ['SubnetsReady EC2NodeClass/default x1', 'Ready EC2NodeClass/default x1'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['nodeclass-not-ready EC2NodeClass default (records)'],
    cause: /SubnetsReady=False SubnetsNotFound "SubnetSelector did not match any Subnets"/,
  },
  {
    file: 'stern-ansi-colour.txt',
    logs: [
      '@3 INFO [/karpenter-7f9c6d5b4-bb2lq/controller] registered nodeclaim',
      '@4 ERROR [/karpenter-7f9c6d5b4-bb2lq/controller] Reconciler error',
      '@5 ERROR [/karpenter-7f9c6d5b4-bb2lq/controller] Reconciler error',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim bottlerocket-q2w8e (records)'],
    cause: /missing required startup taint/,
  },
  {
    file: 'kubetail-limits.txt',
    logs: [
      '@2 INFO [/karpenter-5d6f8b7c9-q8w2n/] found provisionable pod(s)',
      '@3 ERROR [/karpenter-5d6f8b7c9-q8w2n/] could not schedule pod',
      '@4 ERROR [/karpenter-5d6f8b7c9-q8w2n/] could not schedule pod',
      '@5 INFO [/karpenter-5d6f8b7c9-r3t6y/] attempting to acquire leader lease kube-',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['nodepool-limits-reached NodePool memory-opt (records)'],
    cause: /NodePool=memory-opt/,
  },
  {
    file: 'helm-get-values.txt',
    objects: ['NodePool workers @19', 'HelmValues helm get values karpenter @5'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    listed: ['karpenter.sh/NodePool'],
    findings: ['spot-without-interruption-queue HelmValues helm get values karpenter'],
    cause: /no interruption queue/,
  },
  {
    file: 'windows-cmd-describe-pod.txt',
    objects: ['Pod ml/trainer-0 (partial) @5'],
    events: ['FailedScheduling Pod/trainer-0 x9', 'FailedScheduling Pod/trainer-0 x22'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['pending-pod-no-nodepool-fits Pod ml/trainer-0 (records)'],
    cause: /fits no NodePool: NodePool gpu: did not tolerate nvidia\.com\/gpu=true:NoSchedule \(Karpenter said so 22 times/,
  },
  {
    file: 'get-nodes-show-labels.txt',
    objects: ['Node ip-10-44-12-9.us-west-2.compute.internal (partial) @3', 'Node ip-10-44-77-140.us-west-2.compute.internal (partial) @4'],
    skipped: ['6 prose (1 paragraph), not objects or logs'],
    findings: [],
  },
  {
    file: 'truncated-json-list.txt',
    objects: ['NodeClaim bottlerocket-r2d7k @5'],
    skipped: ['2 unexpected end of input inside a JSON value that starts here (truncated file?)'],
    findings: ['launch-refused-by-cloud-provider NodePool bottlerocket'],
    cause: /iam:PassRole/,
  },
  {
    file: 'quoted-describe-and-logs.md',
    logs: [
      '@13 INFO created nodeclaim',
      '@14 ERROR insufficient capacity, all requested ins',
      '@15 INFO created nodeclaim',
      '@16 ERROR insufficient capacity, all requested ins',
    ],
    // The quoted rows are events whose pod the paste does not name (the `...` elision is no row): Karpenter records
    // Nominated on a pod only, so its kind is known, its name not; kubelet's Started has no row in EVENT_SUBJECTS.
    events: ['Nominated Pod/ x1', 'Nominated Pod/ x2', 'Started / x1'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['insufficient-capacity-all-offerings NodePool big-mem-uswest2a'],
    cause: /insufficient capacity 2 times/,
  },
  {
    file: 'grafana-offset-prefix.txt',
    logs: ['@3 INFO launched nodeclaim', '@4 INFO terminating due to timeout', '@5 INFO deleted nodeclaim'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['nodeclaim-not-registered NodeClaim builders-m8x3z (records)'],
    cause: /never joined the cluster/,
  },
  {
    file: 'undated-console-title.md',
    // The error quoted in a sentence without its time is the dated record of the log below: one record, not two.
    logs: [
      '@16 DEBUG Excluding instance type t4g.nano because',
      '@17 INFO Batched 3 pods in 1.000838512s',
      '@18 ERROR Could not launch node, launching instanc',
    ],
    skipped: ['1 prose (6 paragraphs), not objects or logs'],
    findings: ['launch-refused-by-cloud-provider Provisioner default'],
    cause: /not authorised to launch/,
  },
  {
    file: 'logstore-local-prefix-maxspot.md',
    logs: [
      '@5 INFO created nodeclaim',
      '@6 ERROR creating instance, insufficient capacity',
      '@7 INFO created nodeclaim',
      '@8 ERROR creating instance, insufficient capacity',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['launch-quota-or-throttling NodePool batch-spot'],
    cause: /Spot instance quota is used up.*2 times between 2024-07-11T10:15:03.907Z and 2024-07-11T10:15:42.518Z/,
  },
  {
    file: 'console-interruption-v0.27.md',
    logs: [
      '@7 DEBUG removing offering from offerings',
      '@8 INFO deleted node from interruption message',
      '@9 INFO cordoned node',
      '@10 INFO deleted node',
      '@11 INFO found provisionable pod(s)',
      '@12 INFO computed new machine(s) to fit pod(s)',
      '@13 INFO created machine',
    ],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    // A question about the order of drain and replacement: nothing on the node says it ran stateful pods.
    findings: [],
  },
];

describe('the corpus of pasted tickets: read as a person reads them, and the stated cause named', () => {
  it.each(CASES)('$file', async (c) => {
    const r = await scan([corpus(c.file)], { now: NOW });
    const name = (m: { namespace?: string | null; name?: string }) => `${m.namespace ? `${m.namespace}/` : ''}${m.name || '(no name)'}`;
    expect(
      r.load.objects
        .filter((o) => o.object.kind !== 'Event')
        .map((o) => `${o.object.kind} ${name(o.object.metadata)}${o.provenance.partial ? ' (partial)' : ''} @${o.provenance.line}`),
    ).toEqual(c.objects ?? []);
    expect(r.snapshot.events().map((e) => `${e.reason} ${e.involved.kind}/${e.involved.name} x${e.count}`)).toEqual(c.events ?? []);
    expect(
      r.load.logs.map(
        (l) =>
          `@${l.provenance.line} ${l.level ?? '-'}${l.pod ? ` [${l.pod.namespace ?? ''}/${l.pod.name}/${l.pod.container ?? ''}]` : ''} ${l.message.slice(0, 40)}`,
      ),
    ).toEqual(c.logs ?? []);
    const own = corpus(c.file);
    expect(r.load.skipped.map((s) => `${s.source === own ? '' : `${s.source.slice(s.source.lastIndexOf('/') + 1)}:`}${s.line ?? '-'} ${s.reason}`)).toEqual(
      c.skipped,
    );
    const events = r.snapshot.events().length ? ['/Event'] : [];
    const objectKinds = [...new Set(r.load.objects.filter((o) => o.object.kind !== 'Event' && o.object.kind !== 'HelmValues').map((o) => o.object.kind))];
    expect([...r.load.listedKinds].sort()).toEqual(
      c.listed ??
        [
          ...events,
          ...objectKinds.map(
            (k) =>
              `${r.load.objects
                .find((o) => o.object.kind === k)!
                .object.apiVersion.split('/')
                .slice(0, -1)
                .join('/')}/${k}`,
          ),
        ].sort(),
    );
    expect(r.findings.map(findingLabel)).toEqual(c.findings);
    for (const f of r.findings) expect(f.message).toMatch(c.cause!);
    if (c.stated)
      expect(r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => `${n.ruleId} ${n.reason}`)).toEqual(c.stated.map((s) => expect.stringMatching(s)));
  });

  it('nothing in the corpus crashes or is read as nothing', async () => {
    for (const c of CASES) {
      const r = await scan([corpus(c.file)]);
      expect(r.load.objects.length + r.load.logs.length, c.file).toBeGreaterThan(0);
      expect(
        r.notEvaluated.filter((n) => /internal error/.test(n.reason)),
        c.file,
      ).toEqual([]);
    }
  });
});
