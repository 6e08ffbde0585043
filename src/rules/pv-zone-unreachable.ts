import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { commandName, dig, displayName, str } from '../kube/fields.js';
import { INPUTS, KIND } from '../kube/kinds.js';
import { formatDuration } from '../kube/units.js';
import { ageOf, isPending, listNames, podName, POD_PLACEMENT, poolShape, unknownField, unknownOn } from './support.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { admission, admissionOptions, podConstraints } from '../snapshot/pool-admission.js';
import { poolReach, volumeZone, type PoolReach } from './lib/volumes-health-zones.js';
import { saysScheduling } from '../snapshot/messages/scheduling.js';
import { refName, refOf, reportFromRecords, seenText, type RecordsOnlyRule } from './lib/records-only.js';
import { pushAll } from '../kube/lists.js';
import { noPoolShownReason } from './lib/not-shown.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
/** What a pod's events alone say (volumeConflict): the symptom, with what the input does not show. */
const VOLUME_CONFLICT_MESSAGES = {
  statedVolumeConflict:
    'Pod {{pod}} has been Pending with "volume node affinity conflict" for {{span}} ({{seen}}){{nominatedClause}}. {{unseen}}, so {{notShown}} is not shown.',
} as const;

const MESSAGES = {
  podZoneUnreachable:
    'Pod {{pod}} has been Pending{{pending}}: its volume {{pv}} (claim {{claim}}) is pinned to {{zones}}, which no NodePool it can use reaches — {{pools}}{{excludedClause}}. Karpenter cannot launch a node there and kube-scheduler rejects every other node.',
  podVolumeConflict:
    'Pod {{pod}} has been Pending{{pending}}: kube-scheduler has reported "volume node affinity conflict" for {{conflictAge}} (x{{count}}); its volume {{pv}} (claim {{claim}}) is pinned to {{zones}} and no node there accepts it{{poolsClause}}.',
  zoneUnreachable:
    'PersistentVolume {{pv}}{{claimNameClause}} is pinned to {{pinnedZones}}, which no NodePool reaches — {{all}}: a pod using it can never get a Karpenter node.',
  ...VOLUME_CONFLICT_MESSAGES,
} as const;

export default defineRule({
  meta: {
    id: 'pv-zone-unreachable',
    messages: MESSAGES,
    title: 'Pending pod whose volume sits in a zone no NodePool reaches',
    category: 'volumes',
    defaultSeverity: 'error',
    requires: ['PersistentVolume', 'NodePool'],
    optional: ['Pod', 'PersistentVolumeClaim', 'NodeClass', 'Event', 'Node'],
    // A Pending pod's events say it themselves: kube-scheduler's "volume node affinity conflict", again and again.
    records: ['Event'],
    specOnly: 'partly',
    summary: "A Pending pod's bound PersistentVolume is pinned to a zone that no NodePool it can use (or its EC2NodeClass subnets) allows.",
    rationale:
      'A bound PV carries node affinity to its zone (topology.kubernetes.io/zone, or topology.ebs.csi.aws.com/zone, ' +
      "which Karpenter normalises). Karpenter ANDs it into the pod's requirements; if no NodePool the pod can use " +
      'allows that zone, or the EC2NodeClass selects no subnet there (no offering), Karpenter cannot launch a node ' +
      'and the pod stays Pending ("incompatible requirements, key topology.kubernetes.io/zone …"); kube-scheduler ' +
      'rejects every existing node with "volume node affinity conflict" (docs/karpenter-behaviour.md §5.1, §5.3).',
    fix: [
      "Let a NodePool reach the volume's zone: add the zone to its topology.kubernetes.io/zone requirement and make " +
        'sure its EC2NodeClass selects a subnet there; or restore the data (EBS snapshot) into a volume in a zone the ' +
        'NodePools do reach.',
    ],
    examples: {
      bad: '# PV pinned to us-east-1c\nnodeAffinity:\n  required:\n    nodeSelectorTerms:\n    - matchExpressions:\n      - key: topology.ebs.csi.aws.com/zone\n        operator: In\n        values: [us-east-1c]\n---\n# NodePool\nrequirements:\n- key: topology.kubernetes.io/zone\n  operator: In\n  values: [us-east-1a, us-east-1b]',
      good: '# NodePool\nrequirements:\n- key: topology.kubernetes.io/zone\n  operator: In\n  values: [us-east-1a, us-east-1b, us-east-1c]\n# and an EC2NodeClass subnet in us-east-1c',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/2971',
      'https://github.com/aws/karpenter-provider-aws/issues/3262',
      'https://github.com/aws/karpenter-provider-aws/issues/4341',
      'https://karpenter.sh/docs/troubleshooting/#stateful-workloads',
    ],
    options: {
      conflictFor: {
        type: 'duration',
        default: '10m',
        description: 'how long kube-scheduler must have reported "volume node affinity conflict" for a Pending pod before that alone is a finding',
      },
    },
  },

  check({ snapshot, now, options, report, notEvaluatedFor, statedNotJudged }) {
    reportFromRecords({ snapshot, report, statedNotJudged }, volumeConflict(snapshot, options.conflictFor));
    const pools = snapshot.nodePools();
    if (pools.length === 0) return;
    const reachCache = new Map<string, PoolReach>();
    const reachOf = (name: string) => {
      let r = reachCache.get(name);
      if (!r) reachCache.set(name, (r = poolReach(snapshot, snapshot.nodePool(name)!)));
      return r;
    };

    // Without pods and claims (a manifest repository): judge the PVs themselves against every NodePool.
    if (!snapshot.has('Pod') || !snapshot.has('PersistentVolumeClaim')) {
      const reach = new Map(pools.map((p) => [p, poolReach(snapshot, p)]));
      for (const pv of snapshot.all(KIND.PersistentVolume)) {
        const phase = str(dig(pv, 'status', 'phase'));
        if (phase === 'Released' || phase === 'Failed') continue;
        // A PV from a `kubectl get pv` table: its zone (nodeAffinity) is not shown.
        if (unknownOn({ snapshot, notEvaluatedFor }, pv, ['/spec/nodeAffinity'])) continue;
        const pinned = volumeZone(pv);
        if (!pinned) continue;
        // In a repository, the pools deployed with the volume; none there may mean pools created elsewhere.
        const all = snapshot.nodePoolsFor(pv).map((p) => reach.get(p)!);
        const unshown = shapeUnknown(
          snapshot,
          all.map((r) => r.pool),
        );
        if (unshown) {
          notEvaluatedFor(pv, unshown);
          continue;
        }
        if (!all.length) {
          const notShown = noPoolShownReason(snapshot, 'its pods would use');
          if (notShown) notEvaluatedFor(pv, notShown);
          continue;
        }
        if (all.some((r) => r.zones === undefined || r.zones.some((z) => pinned.zones.includes(z)))) continue;
        const evidence: EvidenceInput[] = [
          { object: pv, path: pinned.path, note: `PV ${displayName(pv)} is pinned to ${pinned.zones.join(', ')} (${pinned.key})` },
        ];
        for (const r of all) {
          if (r.requirementIndex !== undefined)
            evidence.push({
              object: r.pool.object,
              path: `${r.pool.requirements.path}/${r.requirementIndex}`,
              note: `NodePool ${r.pool.name} allows ${r.required!.join(', ')}`,
            });
          if (r.nodeClass && r.subnets && !evidence.some((e) => e.object === r.nodeClass))
            evidence.push({
              object: r.nodeClass,
              path: '/status/subnets',
              value: r.subnets.join(', '),
              note: `EC2NodeClass ${displayName(r.nodeClass)} has subnets in ${r.subnets.join(', ')}`,
            });
        }
        const claim = dig(pv, 'spec', 'claimRef') as { namespace?: string; name?: string } | undefined;
        report({
          object: pv,
          severity: 'warning',
          messageId: 'zoneUnreachable',
          data: {
            pv: displayName(pv),
            claimNameClause: claim?.name ? ` (claim ${claim.namespace}/${claim.name})` : '',
            pinnedZones: pinned.zones.join(', '),
            all: all.map((r) => poolText(r, pinned.zones)).join('; '),
          },
          fix: fixText(undefined, pv.metadata.name!, pinned.zones, all, claim?.name ?? 'its claim'),
          evidence,
          related: all.map((r) => r.pool.object),
        });
      }
      return;
    }

    const poolsUnknown = shapeUnknown(snapshot, pools);
    for (const pod of snapshot.all(KIND.Pod)) {
      if (!isPending(pod) || str(dig(pod, 'spec', 'nodeName'))) continue;
      // A Pending pod shown partly: which claims it mounts, or where it may run, is unknown.
      if (unknownOn({ snapshot, notEvaluatedFor }, pod, ['/spec/volumes', ...POD_PLACEMENT])) continue;
      const events = snapshot.eventsForObject(pod).filter((e) => e.reason === 'FailedScheduling');
      const conflict = events.filter((e) => saysScheduling(e.message, 'volume-affinity-conflict')).at(-1);
      const karpenterErr = events.filter((e) => e.component === 'karpenter' && saysScheduling(e.message, 'karpenter-volume-zone')).at(-1);

      for (const claimName of snapshot.claimNamesOf(pod)) {
        const pvc = snapshot.pvc(pod.metadata.namespace, claimName);
        const pv = pvc && snapshot.pvForClaim(pvc);
        if (!pvc || !pv) continue;
        const zoneUnknown = unknownField(snapshot, pv, ['/spec/nodeAffinity']);
        if (zoneUnknown) {
          notEvaluatedFor(pod, zoneUnknown);
          break;
        }
        const pinned = volumeZone(pv);
        if (!pinned) continue;
        // A pool whose requirements or taints are not shown may reach the zone, or take the pod: not judged.
        if (poolsUnknown) {
          notEvaluatedFor(pod, poolsUnknown);
          break;
        }

        const usable: PoolReach[] = [];
        const excluded: string[] = [];
        // Which pools the pod could use but for its volume: the volume's zone is what this rule judges.
        const constraints = podConstraints(pod, '/spec');
        for (const pool of pools) {
          const why = admission(constraints, pool, admissionOptions(snapshot)).reasons[0]?.text;
          if (why) excluded.push(`${pool.name} (${why})`);
          else usable.push(reachOf(pool.name));
        }
        const reaching = usable.filter((r) => r.zones === undefined || r.zones.some((z) => pinned.zones.includes(z)));
        const conflictAge = conflict ? ageOf(conflict.firstSeen, now) : undefined;
        const persistentConflict = conflict !== undefined && conflictAge !== undefined && conflictAge >= options.conflictFor;
        const unreachable = usable.length > 0 && reaching.length === 0;
        if (!unreachable && !persistentConflict) continue;
        if (usable.length === 0 && !persistentConflict) continue; // no pool fits at all: pending-pod-no-nodepool-fits

        const zoneText = pinned.zones.join(', ');
        const evidence: EvidenceInput[] = [
          { object: pod, path: '/status/phase', note: `${podName(pod)} Pending since ${pod.metadata.creationTimestamp ?? 'unknown'}` },
          { object: pvc, path: '/spec/volumeName', note: `claim ${claimName} is bound to PV ${displayName(pv)}` },
          { object: pv, path: pinned.path, note: `PV ${displayName(pv)} is pinned to ${zoneText} (${pinned.key})` },
        ];
        const poolTexts: string[] = [];
        for (const r of usable) {
          if (r.requirementIndex !== undefined) {
            evidence.push({
              object: r.pool.object,
              path: `${r.pool.requirements.path}/${r.requirementIndex}`,
              note: `NodePool ${r.pool.name} allows ${r.required!.join(', ')}`,
            });
          }
          if (r.nodeClass && r.subnets && !evidence.some((e) => e.object === r.nodeClass)) {
            evidence.push({
              object: r.nodeClass,
              path: '/status/subnets',
              value: r.subnets.join(', '),
              note: `EC2NodeClass ${displayName(r.nodeClass)} has subnets in ${r.subnets.join(', ')}`,
            });
          }
          poolTexts.push(poolText(r, pinned.zones));
        }
        if (conflict) evidence.push({ event: conflict, note: 'kube-scheduler rejects the existing nodes' });
        if (karpenterErr) evidence.push({ event: karpenterErr, note: 'Karpenter cannot provision for it' });

        const pendingFor = ageOf(pod.metadata.creationTimestamp, now);
        const pending = pendingFor !== undefined ? ` for ${formatDuration(pendingFor)}` : '';
        const said = unreachable
          ? ({
              messageId: 'podZoneUnreachable',
              data: {
                pod: podName(pod),
                pending,
                pv: displayName(pv),
                claim: claimName,
                zones: zoneText,
                pools: poolTexts.join('; '),
                excludedClause: excluded.length ? `; not usable: ${listNames(excluded)}` : '',
              },
            } as const)
          : ({
              messageId: 'podVolumeConflict',
              data: {
                pod: podName(pod),
                pending,
                conflictAge: formatDuration(conflictAge!),
                count: conflict!.count,
                pv: displayName(pv),
                claim: claimName,
                zones: zoneText,
                poolsClause: usable.length ? ` (${poolTexts.join('; ')})` : '',
              },
            } as const);
        report({
          object: pod,
          ...said,
          fix: fixText(pod, pv.metadata.name!, pinned.zones, usable, claimName),
          evidence,
          related: [pvc, pv, ...usable.map((r) => r.pool.object), ...new Set(usable.flatMap((r) => (r.nodeClass ? [r.nodeClass] : [])))],
        });
        break; // one finding per pod
      }
    }
  },
});

/** The reason no verdict is given when one of `pools` does not show its requirements or taints. */
function shapeUnknown(snapshot: Snapshot, pools: NodePoolView[]): string | undefined {
  for (const p of pools) {
    const why = unknownField(snapshot, p.object, poolShape(p));
    if (why) return `NodePool ${p.name}: ${why}`;
  }
  return undefined;
}

function poolText(r: PoolReach, want: string[]): string {
  if (r.zones === undefined) return `NodePool ${r.pool.name} is not zone-restricted`;
  if (r.zones.some((z) => want.includes(z))) return `NodePool ${r.pool.name} reaches ${want.filter((z) => r.zones!.includes(z)).join(', ')}`;
  const inReq = r.required === undefined || r.required.some((z) => want.includes(z));
  if (!inReq) return `NodePool ${r.pool.name} allows only ${r.required!.join(', ')}`;
  return `NodePool ${r.pool.name} allows ${want.join(', ')} but EC2NodeClass ${r.nodeClass?.metadata.name ?? '?'} has subnets only in ${r.subnets!.join(', ')}`;
}

function fixText(pod: KubeObject | undefined, pv: string, zones: string[], usable: PoolReach[], claim: string): FixSteps {
  const zone = zones[0]!;
  const steps: string[] = [];
  for (const r of usable.slice(0, 2)) {
    if (r.required && !r.required.some((z) => zones.includes(z))) {
      const values = [...r.required, zone];
      steps.push(
        `Allow ${zone} in NodePool ${r.pool.name}:\n  kubectl edit nodepool ${r.pool.name}\n  # ${r.pool.requirements.path}/${r.requirementIndex}\n  - key: topology.kubernetes.io/zone\n    operator: In\n    values: [${values.join(', ')}]`,
      );
    }
    if (r.nodeClass && r.subnets && !r.subnets.includes(zone)) {
      steps.push(
        `Give EC2NodeClass ${displayName(r.nodeClass)} a subnet in ${zone}: tag a subnet there with the tag its subnetSelectorTerms select (e.g. karpenter.sh/discovery), then check: kubectl get ec2nodeclass ${commandName(r.nodeClass)} -o jsonpath='{.status.subnets}'`,
      );
    }
  }
  const unique = [...new Set(steps)];
  steps.length = 0;
  pushAll(steps, unique);
  steps.push(
    `Or move the data to a reachable zone: snapshot the EBS volume of PV ${pv} (aws ec2 create-snapshot), restore it as a new PVC in a zone the NodePools reach, and point ${pod ? podName(pod) : 'the workload'} at it instead of ${claim}.`,
  );
  return steps;
}

/**
 * A Pending pod whose events keep saying "volume node affinity conflict" (docs/karpenter-behaviour.md §5.3), often
 * alternating with Karpenter's Nominated (it launches a node kube-scheduler then refuses): a finding once they span
 * longer than `conflictFor`, judged from the pod's events when its volume, claim or the NodePools are not in the input.
 */
function volumeConflict(snapshot: Snapshot, conflictFor: number) {
  const nominations = (ns: string | null, name: string) =>
    snapshot
      .events()
      .filter((e) => e.reason === 'Nominated' && e.involved.kind === 'Pod' && e.involved.name === name && (e.involved.namespace ?? null) === ns)
      .reduce((n, e) => n + e.count, 0);
  const needed = ['PersistentVolume', 'PersistentVolumeClaim', 'NodePool'] as const;
  const absent = needed.filter((i) => !snapshot.has(i));
  // With every input present the pod itself is partial (a describe): which claim it mounts is what is missing.
  const unseen = absent.length
    ? `No ${absent.map((i) => INPUTS[i].plural).join(' or ')} are in the input`
    : 'The input does not show which claim the pod mounts (its spec.volumes)';
  const collect = (absent.length ? absent : needed).map((i) => INPUTS[i].collect).join(' and ');
  return {
    objectChecksNeed: [...needed],
    fromEvent: (e) => {
      if (e.involved.kind !== 'Pod' || e.reason !== 'FailedScheduling' || !saysScheduling(e.message, 'volume-affinity-conflict')) return undefined;
      const nominated = nominations(e.involved.namespace ?? null, e.involved.name);
      return { object: refOf('Pod', e.involved.name, e.involved.namespace), ...(nominated ? { detail: `${nominated}` } : {}) };
    },
    minSpan: conflictFor,
    // The symptom, not its cause: whether any NodePool reaches the volume's zone is not shown until confirmed.
    severity: 'warning',
    messages: VOLUME_CONFLICT_MESSAGES,
    message: (c, s) => ({
      messageId: 'statedVolumeConflict',
      data: {
        pod: refName(c.object),
        span: formatDuration(s.span ?? 0),
        seen: seenText(s),
        nominatedClause: c.detail
          ? `, while Karpenter nominated it for a node ${c.detail === '1' ? 'once' : `${c.detail} times`} and kube-scheduler still refused`
          : '',
        unseen,
        notShown: snapshot.has('PersistentVolume')
          ? 'whether any NodePool reaches its zone'
          : 'which zone its volume is pinned to, and whether any NodePool reaches it,',
      },
    }),
    fix: (c) =>
      `1. See the zone the volume is pinned to: kubectl get pvc ${c.object.namespace ? `-n ${c.object.namespace}` : '-A'} -o wide, then kubectl get pv <volume> -o jsonpath='{.spec.nodeAffinity}'\n` +
      '2. Let a NodePool reach that zone (its topology.kubernetes.io/zone requirement and an EC2NodeClass subnet there), or restore the data into a volume in a zone the NodePools reach.',
    confirmWith: () => collect,
    stated: (c, s) =>
      `Pod ${refName(c.object)}: kube-scheduler reported "volume node affinity conflict" ${seenText(s)}${s.span !== undefined ? ` over ${formatDuration(s.span)}` : ''}; ` +
      `not a finding while that is not longer than ${formatDuration(conflictFor)} (a volume may be attaching): ${collect} would show whether any NodePool reaches its zone.`,
  } satisfies RecordsOnlyRule;
}
