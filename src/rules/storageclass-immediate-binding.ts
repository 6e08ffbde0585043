import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { noneIn } from '../snapshot/input-words.js';
import type { KubeObject } from '../kube/types.js';
import { arr, dig, displayName, type Json, str } from '../kube/fields.js';
import { allowedZones } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { isPending, karpenterFacts, listNames, plural, podName, unknownField, unknownOn } from './support.js';
import { volumeZone, ZONAL_PROVISIONERS } from './lib/volumes-health-zones.js';
import { VOLUME_ZONE_LABELS } from '../kube/well-known.js';
import { nodeZone } from '../snapshot/nodes.js';
import { saysScheduling } from '../snapshot/messages/scheduling.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  immediateBinding: 'StorageClass {{name}} ({{provisioner}}) binds volumes {{modeClause}}{{zoneText}}: {{consequence}}.{{usage}}',
} as const;

export default defineRule({
  meta: {
    id: 'storageclass-immediate-binding',
    messages: MESSAGES,
    title: 'Zonal StorageClass with Immediate volume binding',
    category: 'volumes',
    defaultSeverity: 'warning',
    requires: ['StorageClass'],
    optional: ['PersistentVolumeClaim', 'Pod', 'NodePool', 'Node', 'Event', 'KarpenterController'],
    specOnly: 'yes',
    summary: 'A zonal StorageClass binds volumes Immediately (or by default), so volumes pick a zone before Karpenter picks a node.',
    rationale:
      'With volumeBindingMode Immediate (the API default when the field is omitted) the CSI driver creates the volume ' +
      'as soon as the PVC exists, in a zone chosen without regard to the pod. If Karpenter provisions while the PVC ' +
      'is still unbound it launches a node in an arbitrary zone; once the volume lands elsewhere the kube-scheduler ' +
      'rejects that node ("volume node affinity conflict") and Karpenter launches a second node in the volume\'s ' +
      'zone, leaving the first empty — duplicate nodes, cost, and pods Pending when no NodePool reaches the zone. ' +
      'Karpenter core v1.7.0 stops provisioning for such pods until the PVC binds, which ends the duplicates but ' +
      'not the zone choice made without the pod (docs/karpenter-behaviour.md §5.1–5.2).',
    fix: [
      'Use a StorageClass with volumeBindingMode: WaitForFirstConsumer, so the volume is created in the zone of the ' +
        'node the pod lands on. The field is immutable: create a new class (or delete and recreate this one under the ' +
        'same name — existing PVs and PVCs are not affected) and move workloads to it.',
    ],
    examples: {
      bad: 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: gp3\nprovisioner: ebs.csi.aws.com\n# volumeBindingMode omitted: defaults to Immediate',
      good: 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: gp3\nprovisioner: ebs.csi.aws.com\nvolumeBindingMode: WaitForFirstConsumer\nparameters:\n  type: gp3',
    },
    references: [
      'https://kubernetes.io/docs/concepts/storage/storage-classes/#volume-binding-mode',
      'https://github.com/aws/karpenter-provider-aws/issues/7800',
      'https://github.com/kubernetes-sigs/karpenter/pull/2415',
      'https://karpenter.sh/docs/troubleshooting/#stateful-workloads',
    ],
  },

  check(ctx) {
    const { snapshot, report } = ctx;
    const clusterState = !snapshot.desiredStateOnly && (snapshot.has('Node') || snapshot.has('Pod'));
    const zones = clusterZones(snapshot);
    if (clusterState && zones.known && zones.zones.size <= 1) return; // single-zone cluster: the zone cannot be wrong
    // A pool whose requirements the input does not show may hold the cluster to one zone: how many zones is unknown.
    const unshown = zones.known ? undefined : snapshot.nodePools().find((p) => !snapshot.isKnown(p.object, p.requirements.path));
    const zonesUnknown = unshown && unknownField(snapshot, unshown.object, [unshown.requirements.path]);
    const version = karpenterFacts(snapshot.controller);
    const fixedInCore = version.coreAtLeast('1.7.0');

    for (const sc of snapshot.all(KIND.StorageClass)) {
      // A class shown by a table or a cut describe: a field it does not show is not the API default.
      if (unknownOn(ctx, sc, ['/provisioner'])) continue;
      const provisioner = str(sc.provisioner) ?? '';
      if (!ZONAL_PROVISIONERS.has(provisioner)) continue;
      if (unknownOn(ctx, sc, ['/volumeBindingMode'])) continue;
      const mode = str(sc.volumeBindingMode);
      if (mode !== undefined && mode !== 'Immediate') continue;
      // A table row shows no topology; a pasted body without it shows that it is unset (the input's known fields say).
      if (unknownOn(ctx, sc, ['/allowedTopologies'])) continue;
      if (pinnedToOneZone(sc)) continue;
      if (zonesUnknown) {
        ctx.notEvaluatedFor(sc, `whether the cluster spans more than one zone is unknown: NodePool ${unshown!.name}: ${zonesUnknown}`);
        continue;
      }

      const name = sc.metadata.name!;
      const evidence: EvidenceInput[] = [
        mode
          ? { object: sc, path: '/volumeBindingMode' }
          : { object: sc, path: '/volumeBindingMode', value: null, note: 'not set: the API default is Immediate' },
        { object: sc, path: '/provisioner', note: 'a zonal (block-storage) provisioner' },
      ];
      let affected: { claims: KubeObject[]; pods: KubeObject[]; pending: KubeObject[] } | undefined;
      if (clusterState && snapshot.has('PersistentVolumeClaim')) {
        affected = karpenterWorkloads(snapshot, name);
        if (affected.claims.length === 0) continue; // nothing Karpenter provisions for uses it
      }
      for (const pod of affected?.pending.slice(0, 3) ?? []) {
        const conflict = snapshot
          .eventsForObject(pod)
          .filter(
            (e) =>
              e.reason === 'FailedScheduling' &&
              (saysScheduling(e.message, 'volume-affinity-conflict') || saysScheduling(e.message, 'unbound-immediate-claim')),
          )
          .at(-1);
        evidence.push(
          conflict
            ? { event: conflict, note: `${podName(pod)} is Pending` }
            : { object: pod, path: '/status/phase', note: `${podName(pod)} uses a claim of this class` },
        );
        // Where its volume already landed: the fact that decides whether any NodePool can still host the pod.
        for (const claimName of snapshot.claimNamesOf(pod)) {
          const claim = snapshot.pvc(pod.metadata.namespace, claimName);
          const pv = claim && snapshot.pvForClaim(claim);
          const zone = pv && volumeZone(pv);
          if (pv && zone)
            evidence.push({
              object: pv,
              path: zone.path,
              value: zone.zones.join(', '),
              note: `volume of ${podName(pod)} is pinned to ${zone.zones.join(', ')}`,
            });
        }
      }
      for (const pool of zones.pools.slice(0, 3)) evidence.push(pool);
      pushAll(evidence, version.evidence());

      const harming = (affected?.pending.length ?? 0) > 0;
      const usage = affected
        ? ` ${plural(affected.claims.length, 'PVC')} of this class (${listNames(affected.claims.map((c) => `${c.metadata.namespace}/${displayName(c)}`))}) serve pods on Karpenter-managed capacity${harming ? `; ${plural(affected.pending.length, 'pod')} Pending (${listNames(affected.pending.map(podName))})` : ''}.`
        : clusterState
          ? ` ${noneIn(snapshot, 'PVCs')}, so which workloads use it is unknown.`
          : '';
      const zoneText = zones.known ? ` across ${zones.zones.size} zones (${[...zones.zones].sort().join(', ')})` : ' in a multi-zone cluster';
      const consequence =
        fixedInCore === true
          ? `Karpenter ${version.label} waits for such PVCs to bind before provisioning, but the volume still picks its zone without regard to where the pod can run`
          : `Karpenter${version.known ? ` ${version.label}` : ''} may launch a node in one zone while the volume is created in another, then launch a second node: duplicate nodes and Pending pods`;
      report({
        object: sc,
        severity: harming ? 'error' : 'warning',
        messageId: 'immediateBinding',
        data: { name, provisioner, modeClause: mode ? 'Immediately' : 'Immediately by default (volumeBindingMode not set)', zoneText, consequence, usage },
        fix: [fixText(sc)],
        evidence,
        related: [...(affected?.claims.slice(0, 10) ?? []), ...(affected?.pending.slice(0, 10) ?? [])],
        ...(fixedInCore === undefined ? { assumes: 'a version before v1.7.0, which launches duplicate nodes' } : {}),
      });
    }
  },
});

/** Claims of this class used by pods that Karpenter provisions for: on a Karpenter node, or Pending. */
function karpenterWorkloads(snapshot: Snapshot, scName: string) {
  const claims: KubeObject[] = [];
  const pods = new Set<KubeObject>();
  const pending = new Set<KubeObject>();
  // A cluster-info dump covers kube-system and default unless -A was given, while `kubectl get pvc -A` covers all:
  // a claim whose namespace has no pod in the snapshot is of unknown use, and counts.
  // A pod whose volumes the input does not show (a node's pod table) may use any claim of its namespace: such a
  // namespace is not covered either.
  const allPods = snapshot.all(KIND.Pod);
  const unshownVolumes = new Set(allPods.filter((p) => !snapshot.isKnown(p, '/spec/volumes')).map((p) => p.metadata.namespace ?? ''));
  const namespacesWithPods = new Set(allPods.map((p) => p.metadata.namespace ?? '').filter((ns) => !unshownVolumes.has(ns)));
  for (const claim of snapshot.claimsOfStorageClass(scName)) {
    const users = snapshot.podsUsingClaim(claim.metadata.namespace, claim.metadata.name!);
    let relevant = !namespacesWithPods.has(claim.metadata.namespace ?? '');
    for (const pod of users) {
      const nodeName = str(dig(pod, 'spec', 'nodeName'));
      const node = nodeName ? snapshot.get(KIND.Node, undefined, nodeName) : undefined;
      if (isPending(pod)) {
        pending.add(pod);
        relevant = true;
      } else if (node && snapshot.isKarpenterNode(node)) {
        pods.add(pod);
        relevant = true;
      }
    }
    if (relevant) claims.push(claim);
  }
  return { claims, pods: [...pods], pending: [...pending] };
}

/** Zones Karpenter can place nodes in: NodePool zone requirements, else zones of Karpenter nodes seen. */
function clusterZones(snapshot: Snapshot): { known: boolean; zones: Set<string>; pools: EvidenceInput[] } {
  const zones = new Set<string>();
  const pools: EvidenceInput[] = [];
  let unrestricted = false;
  for (const pool of snapshot.nodePools()) {
    const allowed = allowedZones(pool);
    if (!allowed) unrestricted = true;
    else {
      allowed.forEach((z) => zones.add(z));
      const i = pool.requirements.value.findIndex((r) => VOLUME_ZONE_LABELS.includes(r.key));
      pools.push({ object: pool.object, path: `${pool.requirements.path}/${i}`, note: `NodePool ${pool.name} allows ${allowed.join(', ')}` });
    }
  }
  for (const node of snapshot.karpenterNodes()) {
    const z = nodeZone(node);
    if (z) zones.add(z);
  }
  // An unrestricted pool may use every zone its node class has subnets in: count those too.
  let subnetZones = 0;
  if (unrestricted) {
    for (const nc of snapshot.all(KIND.EC2NodeClass)) {
      for (const s of arr<Json>(dig(nc, 'status', 'subnets'))) {
        if (typeof s.zone !== 'string') continue;
        zones.add(s.zone);
        subnetZones++;
      }
    }
  }
  // One zone seen is only conclusive when every pool is bound to known zones (requirements or subnets).
  const known = zones.size > 1 || (snapshot.nodePools().length > 0 && (!unrestricted || subnetZones > 0));
  return { known, zones, pools };
}

/** `allowedTopologies` restricted to a single zone makes Immediate binding harmless. */
function pinnedToOneZone(sc: KubeObject): boolean {
  const terms = arr<Json>(sc.allowedTopologies);
  if (terms.length !== 1) return false;
  const exprs = arr<Json>(terms[0]!.matchLabelExpressions);
  return exprs.some((e) => VOLUME_ZONE_LABELS.includes(String(e.key)) && arr<unknown>(e.values).length === 1);
}

function fixText(sc: KubeObject): string {
  const name = sc.metadata.name!;
  const params = sc.parameters && typeof sc.parameters === 'object' ? Object.entries(sc.parameters as Json) : [];
  const lines = [
    'apiVersion: storage.k8s.io/v1',
    'kind: StorageClass',
    'metadata:',
    `  name: ${name}`,
    `provisioner: ${String(sc.provisioner)}`,
    'volumeBindingMode: WaitForFirstConsumer',
    ...(params.length ? ['parameters:', ...params.map(([k, v]) => `  ${k}: ${JSON.stringify(String(v))}`)] : []),
    ...(sc.reclaimPolicy ? [`reclaimPolicy: ${String(sc.reclaimPolicy)}`] : []),
    ...(sc.allowVolumeExpansion !== undefined ? [`allowVolumeExpansion: ${String(sc.allowVolumeExpansion)}`] : []),
  ];
  return (
    'volumeBindingMode is immutable. Recreate the class with WaitForFirstConsumer (existing PVs/PVCs keep working):\n' +
    `  kubectl get storageclass ${name} -o yaml > ${name}.backup.yaml\n  kubectl delete storageclass ${name}\n  kubectl apply -f - <<'EOF'\n` +
    lines.map((l) => `  ${l}`).join('\n') +
    '\n  EOF\nIn a GitOps repo, set volumeBindingMode: WaitForFirstConsumer in the manifest and let the sync recreate it.'
  );
}
