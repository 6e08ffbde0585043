import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import { dig, displayName, str } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { ageOf, agoText, listNames, podName } from './support.js';
import { heldIn, noneIn } from '../snapshot/input-words.js';
import { notShownReason } from './lib/not-shown.js';
import { eventSays, missingReference } from '../snapshot/messages/object-events.js';
import { getCommand, refOf, reportFromRecords, seenText, type RecordsOnlyRule } from './lib/records-only.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
/** What kube-scheduler's or the provisioner's events alone say (STATED_MISSING). */
const STATED_MISSING_MESSAGES = {
  statedClaimMissing:
    'PersistentVolumeClaim {{namespace}}/{{name}}, which {{pod}} mounts, does not exist: kube-scheduler said so {{seen}} ("{{text}}"). The pod stays Pending and Karpenter cannot provision for it.',
  statedClassMissing:
    'PersistentVolumeClaim {{namespace}}/{{name}} names {{storageClass}}, which does not exist: the provisioner said so {{seen}} ("{{text}}"). Pods using it stay Pending.',
} as const;

const MESSAGES = {
  ...STATED_MISSING_MESSAGES,
  referenceMissing: 'PersistentVolumeClaim {{name}} names {{what}}, which {{whatClause}} not exist{{phaseClause}}{{ageClause}}.{{podText}}',
} as const;

export default defineRule({
  meta: {
    id: 'pvc-references-missing-object',
    messages: MESSAGES,
    title: 'PVC names a StorageClass or PersistentVolume that does not exist',
    category: 'volumes',
    defaultSeverity: 'error',
    requires: ['PersistentVolumeClaim', 'StorageClass'],
    optional: ['PersistentVolume', 'Pod', 'Event'],
    // kube-scheduler names a claim that does not exist on the Pod, the provisioner a missing StorageClass on the claim.
    records: ['Event'],
    specOnly: 'yes',
    summary: 'A PersistentVolumeClaim names a StorageClass (storageClassName) or a PersistentVolume (volumeName) that is not in the cluster.',
    rationale:
      'A claim whose StorageClass is missing is never provisioned; one whose volumeName points at a deleted PV is ' +
      'Lost. Pods using it stay Pending forever. Karpenter computes volume topology for such pods from the claim, ' +
      'and (depending on the version) keeps simulating, nominating or launching capacity for pods that can never ' +
      'start, and then removes the empty nodes — a launch/drain loop that costs money and hides the real error ' +
      '(docs/karpenter-behaviour.md §5.1, §5.4).',
    fix: [
      'Create the missing StorageClass (or change the claim to an existing one by recreating it), or recreate the PV / restore the data and rebind the claim.',
    ],
    examples: {
      bad: 'kind: PersistentVolumeClaim\nspec:\n  storageClassName: gp3-encrypted   # no such StorageClass',
      good: 'kind: PersistentVolumeClaim\nspec:\n  storageClassName: gp3   # kubectl get storageclass gp3 exists',
    },
    references: [
      'https://kubernetes.io/docs/concepts/storage/persistent-volumes/#class',
      'https://kubernetes.io/docs/concepts/storage/persistent-volumes/#binding',
      'https://github.com/kubernetes-sigs/karpenter/pull/2851',
    ],
  },

  check({ snapshot, now, report, notEvaluatedFor, statedNotJudged }) {
    reportFromRecords({ snapshot, report, statedNotJudged }, STATED_MISSING);
    const scNames = snapshot.all(KIND.StorageClass).map((s) => s.metadata.name!);
    const pvKnown = snapshot.has('PersistentVolume');
    for (const pvc of snapshot.all(KIND.PersistentVolumeClaim)) {
      if (pvc.metadata.deletionTimestamp) continue;
      const scName = dig(pvc, 'spec', 'storageClassName');
      const volumeName = str(dig(pvc, 'spec', 'volumeName'));
      let missingSc = typeof scName === 'string' && scName !== '' && !snapshot.resolve(pvc, 'storageClass', KIND.StorageClass, undefined, scName).object;
      // A repository's claim may use a class the platform creates (gp3 from an add-on), and classes a ticket shows one
      // at a time (a describe, a single -o yaml) do not say the others are absent: not here is not missing.
      const notShown = missingSc ? notShownReason(snapshot, KIND.StorageClass, String(scName)) : undefined;
      if (notShown) {
        notEvaluatedFor(pvc, notShown);
        missingSc = false;
      }
      const pvListed = pvKnown && snapshot.namesListed(KIND.PersistentVolume);
      const missingPv = pvListed && volumeName !== undefined && volumeName !== '' && !snapshot.get(KIND.PersistentVolume, undefined, volumeName);
      if (!missingSc && !missingPv) continue;

      const name = `${pvc.metadata.namespace}/${displayName(pvc)}`;
      const evidence: EvidenceInput[] = [];
      const what: string[] = [];
      if (missingSc) {
        evidence.push({
          object: pvc,
          path: '/spec/storageClassName',
          note: `no StorageClass ${scName} among the ${scNames.length} ${heldIn(snapshot)} (${listNames(scNames)})`,
        });
        what.push(`StorageClass ${scName}`);
      }
      if (missingPv) {
        evidence.push({ object: pvc, path: '/spec/volumeName', note: noneIn(snapshot, `PersistentVolume ${volumeName}`) });
        what.push(`PersistentVolume ${volumeName}`);
      }
      const phase = str(dig(pvc, 'status', 'phase'));
      if (phase) evidence.push({ object: pvc, path: '/status/phase' });
      const events = snapshot.eventsForObject(pvc).filter((e) => e.type === 'Warning' && eventSays(e.message, 'reference-missing'));
      for (const e of events.slice(-2)) evidence.push({ event: e });
      const pods = snapshot.podsUsingClaim(pvc.metadata.namespace, pvc.metadata.name!);
      const pending = pods.filter((p) => dig(p, 'status', 'phase') === 'Pending');
      for (const p of pending.slice(0, 3)) evidence.push({ object: p, path: '/status/phase', note: `${podName(p)} uses the claim` });

      const age = ageOf(pvc.metadata.creationTimestamp, now);
      const podText = pods.length
        ? ` ${pending.length ? `${listNames(pending.map(podName))} ${pending.length === 1 ? 'is' : 'are'} Pending on it` : `Used by ${listNames(pods.map(podName))}`}; Karpenter keeps provisioning for pods that can never start.`
        : '';
      report({
        object: pvc,
        messageId: 'referenceMissing',
        data: {
          name,
          what: what.join(' and '),
          whatClause: what.length > 1 ? 'do' : 'does',
          phaseClause: phase ? `; it is ${phase}` : '',
          ageClause: age !== undefined ? ` (created ${agoText(age, snapshot)})` : '',
          podText,
        },
        fix: fixText(pvc.metadata.namespace!, pvc.metadata.name!, missingSc ? String(scName) : undefined, missingPv ? volumeName : undefined, scNames),
        evidence,
        related: pods.slice(0, 10),
      });
    }
  },
});

function fixText(ns: string, name: string, sc: string | undefined, pv: string | undefined, existing: string[]): FixSteps {
  const steps: string[] = [];
  if (sc) {
    steps.push(
      `Create the StorageClass it names (storageClassName is immutable on a claim):\n  kubectl apply -f - <<'EOF'\n  apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata:\n    name: ${sc}\n  provisioner: ebs.csi.aws.com\n  volumeBindingMode: WaitForFirstConsumer\n  parameters:\n    type: gp3\n  EOF`,
    );
    if (existing.length) {
      steps.push(
        `Or recreate the claim on an existing class (${listNames(existing)}):\n  kubectl get pvc -n ${ns} ${name} -o yaml > ${name}.yaml   # edit spec.storageClassName, drop status/uid/resourceVersion\n  kubectl delete pvc -n ${ns} ${name} && kubectl apply -f ${name}.yaml`,
      );
    }
  }
  if (pv) {
    steps.push(
      `Its PersistentVolume ${pv} is gone: restore the data (e.g. from an EBS snapshot) into a PV named ${pv} with claimRef ${ns}/${name}, or delete and recreate the claim to provision a new, empty volume:\n  kubectl delete pvc -n ${ns} ${name}`,
    );
  }
  return steps;
}

/**
 * Events that name the missing object: a Pod's claim (FailedScheduling `persistentvolumeclaim "x" not found`), a claim's
 * StorageClass (ProvisioningFailed). Once is a race (a StatefulSet creates the claim just before the pod): stated.
 */
const STATED_MISSING = {
  objectChecksNeed: ['PersistentVolumeClaim', 'StorageClass'],
  fromEvent: (e) => {
    const missing = e.type === 'Warning' ? missingReference(e.message) : undefined;
    if (!missing) return undefined;
    if (missing.kind === 'PersistentVolumeClaim' && e.involved.kind === 'Pod')
      return {
        object: refOf('PersistentVolumeClaim', missing.name, e.involved.namespace),
        key: 'claim',
        detail: `Pod ${e.involved.namespace ?? ''}/${e.involved.name}`,
      };
    if (missing.kind === 'StorageClass' && e.involved.kind === 'PersistentVolumeClaim')
      return { object: refOf('PersistentVolumeClaim', e.involved.name, e.involved.namespace), key: 'class', detail: `StorageClass ${missing.name}` };
    return undefined;
  },
  minOccurrences: 2,
  messages: STATED_MISSING_MESSAGES,
  message: (c, s): { messageId: keyof typeof STATED_MISSING_MESSAGES; data: Record<string, string> } =>
    c.key === 'claim'
      ? {
          messageId: 'statedClaimMissing',
          data: { namespace: c.object.namespace ?? '', name: c.object.name, pod: c.detail ?? '', seen: seenText(s), text: s.text },
        }
      : {
          messageId: 'statedClassMissing',
          data: { namespace: c.object.namespace ?? '', name: c.object.name, storageClass: c.detail ?? '', seen: seenText(s), text: s.text },
        },
  fix: (c) =>
    c.key === 'claim'
      ? `Create the claim the pod names, or fix the pod's volume (a renamed volumeClaimTemplate needs the StatefulSet recreated): kubectl -n ${c.object.namespace} get pvc`
      : `Create ${c.detail ?? 'the StorageClass'} or point the claim at one that exists (storageClassName is immutable: recreate the claim): kubectl get storageclasses`,
  confirmWith: (c) =>
    c.key === 'claim' ? `kubectl -n ${c.object.namespace} get pvc -o yaml` : `${getCommand(c.object)} and kubectl get storageclasses -o yaml`,
  stated: (c, s) =>
    `${c.key === 'claim' ? `${c.detail} mounts PersistentVolumeClaim ${c.object.namespace}/${c.object.name}, which did not exist` : `PersistentVolumeClaim ${c.object.namespace}/${c.object.name} names ${c.detail}, which did not exist`} ` +
    `${seenText(s)} ("${s.text}"); once may be a race with its creation, so it is not a finding: kubectl -n ${c.object.namespace} get pvc would show whether it exists now.`,
} satisfies RecordsOnlyRule;
