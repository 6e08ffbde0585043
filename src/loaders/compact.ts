/**
 * Load-time compaction: drop the bulky fields no rule reads, so a 3 GB dump becomes a snapshot a fraction of
 * its size. This is the single list of what is thrown away; a rule that needs one of these fields must change
 * this file first. It never removes array elements: JSON pointers in findings must stay true to the file.
 */
import type { KubeObject } from '../kube/types.js';
import { KARPENTER_GROUPS } from '../kube/kinds.js';
import { CONTROLLER_SETTING_NAMES } from './controller-settings.js';
import { LAST_APPLIED_ANNOTATION as LAST_APPLIED } from '../kube/well-known.js';

/** A container with one of these is a Karpenter (or node-termination-handler) controller: its env is kept. */
const CONTROLLER_MARKERS =
  /^(FEATURE_GATES|INTERRUPTION_QUEUE|CLUSTER_ENDPOINT|BATCH_MAX_DURATION|BATCH_IDLE_DURATION|KARPENTER_[A-Z_]+|QUEUE_URL|ENABLE_SQS_TERMINATION_DRAINING|ENABLE_SPOT_INTERRUPTION_DRAINING)$/;

/** Karpenter's controller and aws-node-termination-handler, by image. */
const CONTROLLER_IMAGE = /karpenter\/controller|karpenter-controller|\/karpenter[:@]|node-termination-handler/;

/**
 * Settings the controller reads from its environment; their values are kept so version/gate/queue detection works.
 * Older charts also set KARPENTER_-prefixed names, kept here (a dump is already on the user's disk; a bundle keeps
 * only the listed names).
 */
const KEPT_SETTINGS = new Set<string>(CONTROLLER_SETTING_NAMES);
const isControllerSetting = (name: string) => KEPT_SETTINGS.has(name) || name.startsWith('KARPENTER_');

const CONTAINER_DROP = [
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'securityContext',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'imagePullPolicy',
  'volumeMounts',
  'volumeDevices',
  'workingDir',
  'envFrom',
] as const;

const CONTAINER_STATUS_DROP = [
  'image',
  'imageID',
  'containerID',
  'volumeMounts',
  'user',
  'allocatedResources',
  'resources',
  'lastState',
  'restartCount',
] as const;

/**
 * A Pod's fields no rule, view or report reads (a report shows the value a finding points at, so a condition keeps its
 * lastProbeTime), on every one of a dump's 150,000 pods (a tenth of the kept heap).
 * Only kind Pod: workload templates are few, and `against` compares what repositories declare.
 */
const POD_SPEC_DROP = [
  'automountServiceAccountToken',
  'dnsConfig',
  'dnsPolicy',
  'enableServiceLinks',
  'hostAliases',
  'preemptionPolicy',
  'priority',
  'readinessGates',
  'schedulerName',
  'serviceAccount',
  'serviceAccountName',
  'subdomain',
  'terminationGracePeriodSeconds',
] as const;
const POD_STATUS_DROP = ['hostIP', 'hostIPs', 'podIP', 'podIPs', 'qosClass'] as const;

/**
 * A Node's status fields no rule, view or report reads: the kubelet's endpoint and runtime handlers, the machine's
 * identities, the volumes it reports (storage rules read the claims and attachments, not these). Conditions and their
 * heartbeats stay: they set the reference time.
 */
const NODE_STATUS_DROP = ['images', 'daemonEndpoints', 'runtimeHandlers', 'features', 'config', 'volumesAttached', 'volumesInUse'] as const;
const NODE_INFO_DROP = ['machineID', 'systemUUID', 'bootID'] as const;

/**
 * An Event's fields no view reads (snapshot/events.ts reads the reference's kind, namespace, name and uid, the reason,
 * message, type, counts, times and emitting component): which kubelet printed it, and where in its object it points.
 */
const EVENT_DROP = ['reportingInstance'] as const;
const EVENT_REFERENCE_DROP = ['resourceVersion', 'fieldPath'] as const;

let enabled = true;

/** Only for the test that runs every rule over every fixture with and without compaction: nothing else turns it off. */
export function setCompaction(on: boolean): void {
  enabled = on;
}

/**
 * Karpenter's own kinds keep kubectl's last-applied-configuration: it is the manifest as the user wrote it, and when it
 * is of an older API than the object served back (a v1beta1 NodePool read as v1) it shows which of their settings the
 * conversion moved or lost (deprecated-karpenter-api). These objects are few and small; every other kind drops it.
 */
const KEEPS_LAST_APPLIED = new Set(['NodePool', 'NodeClaim', 'EC2NodeClass', 'AKSNodeClass', 'Provisioner', 'Machine', 'AWSNodeTemplate']);
const keepsLastApplied = (obj: KubeObject) => KEEPS_LAST_APPLIED.has(obj.kind) && KARPENTER_GROUPS.has(String(obj.apiVersion).split('/')[0] ?? '');

/**
 * Fields are cleared, not deleted: `delete` turns V8 objects into slow dictionaries, and cleared fields vanish anyway
 * when objects cross from a worker thread as JSON.
 */
export function compactObject(obj: KubeObject): KubeObject {
  if (!enabled) return obj;
  const meta = obj.metadata;
  if (meta) {
    clear(meta, 'managedFields');
    if (meta.annotations && !keepsLastApplied(obj)) clear(meta.annotations, LAST_APPLIED);
  }
  switch (obj.kind) {
    case 'Node':
      compactNode(obj);
      break;
    case 'Event':
      compactEvent(obj);
      break;
    case 'Pod':
      compactPodSpec(obj.spec);
      if (isRecord(obj.spec)) for (const k of POD_SPEC_DROP) clear(obj.spec, k);
      compactPodStatus(obj.status);
      break;
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
    case 'ReplicationController':
      compactPodSpec(dig(obj, 'spec', 'template', 'spec'));
      break;
    case 'CronJob':
      compactPodSpec(dig(obj, 'spec', 'jobTemplate', 'spec', 'template', 'spec'));
      break;
    case 'CustomResourceDefinition': {
      // Only Karpenter's schemas are read (karpenter-object-rejected); a cluster's other CRDs can weigh hundreds of MB.
      const spec = obj.spec as Record<string, unknown> | undefined;
      if (spec && !KARPENTER_GROUPS.has(String(spec.group))) {
        clear(spec, 'versions');
        clear(spec, 'validation');
      }
      break;
    }
  }
  return obj;
}

function compactNode(node: KubeObject): void {
  const status = node.status;
  if (!isRecord(status)) return;
  for (const k of NODE_STATUS_DROP) clear(status, k);
  if (isRecord(status.nodeInfo)) for (const k of NODE_INFO_DROP) clear(status.nodeInfo, k);
}

/** core/v1 names the object `involvedObject`, events.k8s.io/v1 `regarding`; both may carry a `related` one. */
function compactEvent(event: KubeObject): void {
  const e = event as unknown as Record<string, unknown>;
  for (const k of EVENT_DROP) clear(e, k);
  for (const ref of [e.involvedObject, e.regarding, e.related]) if (isRecord(ref)) for (const k of EVENT_REFERENCE_DROP) clear(ref, k);
  if (isRecord(e.source)) clear(e.source, 'host');
}

/** Volume sources that say nothing about storage topology: reduced to their name, keeping every index. */
const NON_STORAGE_VOLUMES = ['projected', 'configMap', 'secret', 'downwardAPI', 'serviceAccountToken'];

function compactPodSpec(spec: unknown): void {
  if (!isRecord(spec)) return;
  clear(spec, 'securityContext');
  if (Array.isArray(spec.volumes)) {
    spec.volumes = spec.volumes.map((v) => (isRecord(v) && NON_STORAGE_VOLUMES.some((k) => k in v) ? { name: v.name } : v));
  }
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    const list = spec[key];
    if (!Array.isArray(list)) continue;
    for (const c of list) if (isRecord(c)) compactContainer(c);
  }
}

function compactContainer(c: Record<string, unknown>): void {
  for (const k of CONTAINER_DROP) clear(c, k);
  // Only a container that carries controller settings keeps its env; there entries stay where they are — evidence
  // points into the array by index (`env/12/value`) — and only the settings keep a value (others are bulk, and
  // sometimes secrets).
  const env = c.env;
  if (Array.isArray(env)) {
    const settings =
      CONTROLLER_IMAGE.test(typeof c.image === 'string' ? c.image : '') ||
      env.some((e) => isRecord(e) && typeof e.name === 'string' && CONTROLLER_MARKERS.test(e.name));
    c.env = settings ? env.map((e) => (isRecord(e) && typeof e.name === 'string' && !isControllerSetting(e.name) ? { name: e.name } : e)) : undefined;
  }
  // Ports matter to scheduling only through hostPort.
  if (Array.isArray(c.ports) && !c.ports.some((p) => isRecord(p) && p.hostPort !== undefined)) c.ports = undefined;
}

function compactPodStatus(status: unknown): void {
  if (!isRecord(status)) return;
  for (const k of POD_STATUS_DROP) clear(status, k);
  for (const key of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const list = status[key];
    if (!Array.isArray(list)) continue;
    for (const s of list) if (isRecord(s)) for (const k of CONTAINER_STATUS_DROP) clear(s, k);
  }
}

function clear(obj: Record<string, unknown>, key: string): void {
  if (obj[key] !== undefined) obj[key] = undefined;
}

function dig(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isRecord(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
