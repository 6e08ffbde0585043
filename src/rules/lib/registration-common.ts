/**
 * Shared by the registration family (catalog §5): the taints Karpenter and node agents manage, which agent removes
 * which startup taint, whether that agent's DaemonSet can run on a node, and the NodeClaim timeline.
 */
import { nodeMismatch } from '../../snapshot/selectors.js';
import type { EvidenceInput } from '../../engine/rule.js';
import type { KubeObject, LogRecord } from '../../kube/types.js';
import { arr, dig, displayName, type Json, str } from '../../kube/fields.js';
import type { NodeClaimView } from '../../snapshot/karpenter.js';
import { KIND } from '../../kube/kinds.js';
import { INSTANCE_TYPE_LABEL } from '../../kube/well-known.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { awsNodeClassOf } from './configuration.js';
import { logRefs } from '../../snapshot/messages/karpenter-logs.js';

/** A node agent that removes its own "not ready" taint once it runs on the node. */
export interface Agent {
  /** Human name: "Cilium agent". */
  name: string;
  /** DaemonSet names that run it (EKS add-on and Helm chart defaults). */
  daemonSets: RegExp;
  /**
   * Installed, it puts the taint on every new node itself (not only when the node is told to register with it):
   * who does, and the taint it writes.
   */
  taintsNewNodes?: { key: string; by: string; value?: string; effect: string };
}

const AGENTS: Array<{ key: RegExp; agent: Agent }> = [
  // The Cilium operator taints nodes where the agent is not running yet (operator.setNodeTaints, on by default).
  {
    key: /^node\.cilium\.io\/agent-not-ready$/,
    agent: {
      name: 'Cilium agent',
      daemonSets: /^cilium$/,
      taintsNewNodes: { key: 'node.cilium.io/agent-not-ready', by: 'the Cilium operator', value: 'true', effect: 'NoSchedule' },
    },
  },
  { key: /^ebs\.csi\.aws\.com\/agent-not-ready$/, agent: { name: 'EBS CSI node plugin', daemonSets: /^ebs-csi-node(-windows)?$/ } },
  { key: /^efs\.csi\.aws\.com\/agent-not-ready$/, agent: { name: 'EFS CSI node plugin', daemonSets: /^efs-csi-node$/ } },
  { key: /^s3\.csi\.aws\.com\/agent-not-ready$/, agent: { name: 'Mountpoint for S3 CSI node plugin', daemonSets: /^s3-csi-node$/ } },
  { key: /^secrets-store\.csi\.k8s\.io\/agent-not-ready$/, agent: { name: 'Secrets Store CSI driver', daemonSets: /secrets-store-csi-driver/ } },
  { key: /^cni\.istio\.io\/not-ready$/, agent: { name: 'istio-cni node agent', daemonSets: /^istio-cni-node$/ } },
  { key: /^node\.calico\.io\/not-ready$|^projectcalico\.org\/not-ready$/, agent: { name: 'Calico node agent', daemonSets: /^calico-node$/ } },
  // Any other CSI node plugin that uses the agent-not-ready convention (taint removal on driver registration).
  { key: /^([a-z0-9.-]+)\/agent-not-ready$/, agent: { name: 'node agent', daemonSets: /csi-node|node-agent/ } },
];

/** Agents that taint every new node themselves: installing one is enough for the taint to appear. */
export function selfTaintingAgents(): Agent[] {
  return AGENTS.map((a) => a.agent).filter((a) => a.taintsNewNodes);
}

/** The agent that is expected to remove a taint, when the key is a recognisable agent "not ready" taint. */
export function agentFor(key: string): Agent | undefined {
  for (const { key: re, agent } of AGENTS) {
    const m = re.exec(key);
    if (!m) continue;
    if (agent.name === 'node agent') return { name: `${m[1]} node agent (CSI driver ${m[1]})`, daemonSets: agent.daemonSets };
    return agent;
  }
  return undefined;
}

/** Toleration semantics of the scheduler (`Exists` with empty key tolerates everything). */

export interface DaemonSetVerdict {
  daemonSet: KubeObject;
  /** Why it cannot run on the node; undefined when it can. */
  problem?: string;
  evidence: EvidenceInput[];
  /** Its pod on the node, if the dump has it. */
  pod?: KubeObject;
}

/**
 * Whether a DaemonSet's pods can land on a node: nodeSelector, required node affinity, and tolerations of every
 * NoSchedule/NoExecute taint the node carries (including the taint the agent itself is meant to remove).
 */
export function daemonSetFit(snapshot: Snapshot, ds: KubeObject, node: KubeObject): DaemonSetVerdict {
  const spec = dig(ds, 'spec', 'template', 'spec');
  const evidence: EvidenceInput[] = [];
  let problem: string | undefined;
  const miss = nodeMismatch(spec, node);
  if (miss?.kind === 'nodeSelector') {
    problem = `its nodeSelector ${miss.key}=${miss.value} does not match the node`;
    evidence.push({ object: ds, path: '/spec/template/spec/nodeSelector', note: problem });
  } else if (miss?.kind === 'affinity') {
    problem = 'its required node affinity excludes the node';
    evidence.push({ object: ds, path: '/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution', note: problem });
  } else if (miss?.kind === 'taint') {
    const t = miss.taint;
    problem = `it does not tolerate the node's taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
    evidence.push({ object: ds, path: '/spec/template/spec/tolerations', value: dig(spec, 'tolerations') ?? [], note: problem });
  }
  const nodeName = node.metadata.name ?? '';
  const pod = snapshot
    .podsOnNode(nodeName)
    .find((p) => arr<Json>(p.metadata.ownerReferences).some((o) => o.kind === 'DaemonSet' && o.name === ds.metadata.name));
  return { daemonSet: ds, ...(problem ? { problem } : {}), evidence, ...(pod ? { pod } : {}) };
}

/** DaemonSets (any namespace) whose name says they run the agent. */
export function agentDaemonSets(snapshot: Snapshot, agent: Agent): KubeObject[] {
  return snapshot.all(KIND.DaemonSet).filter((ds) => agent.daemonSets.test(ds.metadata.name ?? ''));
}

/** Why an agent pod on the node is not doing its job (not Running / container waiting), if it says so. */
export function podTrouble(pod: KubeObject): string | undefined {
  const phase = str(dig(pod, 'status', 'phase'));
  for (const c of arr<Json>(dig(pod, 'status', 'containerStatuses'))) {
    const waiting = str(dig(c, 'state', 'waiting', 'reason'));
    if (waiting) return `container ${str(c.name) ?? ''} is waiting: ${waiting}`;
    if (c.ready === false && phase === 'Running') return `container ${str(c.name) ?? ''} is not ready`;
  }
  return phase && phase !== 'Running' ? `it is ${phase}` : undefined;
}

/** The NodeClaim's node class name (v1 nodeClassRef, v1alpha5 providerRef). */
export function nodeClassNameOf(claim: NodeClaimView): string | undefined {
  return str(dig(claim.object, 'spec', 'nodeClassRef', 'name')) ?? str(dig(claim.object, 'spec', 'providerRef', 'name'));
}

/** The EC2NodeClass (or AWSNodeTemplate) a NodeClaim was launched from; none when it names another provider's node class. */
export function awsNodeClassOfClaim(snapshot: Snapshot, claim: NodeClaimView): KubeObject | undefined {
  const ref = dig(claim.object, 'spec', 'nodeClassRef') ?? dig(claim.object, 'spec', 'providerRef');
  const apiVersion = str(dig(ref, 'apiVersion'));
  const group = str(dig(ref, 'group')) ?? (apiVersion?.includes('/') ? apiVersion.split('/')[0] : undefined);
  const kind = str(dig(ref, 'kind'));
  return awsNodeClassOf(snapshot, { ...(group ? { group } : {}), ...(kind ? { kind } : {}), name: nodeClassNameOf(claim) });
}

/** The NodeClaim a controller log record is about (v1 `NodeClaim: {name}`, v0.32–0.36 `nodeclaim`, reconcile `name`). */
export function logNodeClaim(log: LogRecord): string | undefined {
  return logRefs(log.fields).nodeClaim;
}

/** The NodePool (≤ v0.31 Provisioner) a controller log record is about, from its fields, else from a NodeClaim name `<pool>-<suffix>`. */
export function logNodePool(log: LogRecord, pools: Set<string>): string | undefined {
  return logRefs(log.fields).nodePool ?? poolFromClaimName(logNodeClaim(log), pools);
}

export function poolFromClaimName(claim: string | undefined, pools: Set<string>): string | undefined {
  if (!claim) return undefined;
  const m = /^(.*)-[a-z0-9]{5}$/.exec(claim);
  return m && pools.has(m[1]!) ? m[1] : undefined;
}

/** When the NodeClaim registered (Registered=True transition), else when its Node was created. */
export function registeredAt(claim: NodeClaimView | undefined, node: KubeObject | undefined): { time?: string; evidence?: EvidenceInput } {
  const reg = claim?.conditions.find((c) => c.type === 'Registered' && c.status === 'True');
  if (claim && reg?.lastTransitionTime) {
    return {
      time: reg.lastTransitionTime,
      evidence: {
        object: claim.object,
        path: `/status/conditions/${reg.index}`,
        note: `NodeClaim ${displayName(claim.object)} registered at ${reg.lastTransitionTime}`,
      },
    };
  }
  if (node?.metadata.creationTimestamp) {
    return { time: node.metadata.creationTimestamp, evidence: { object: node, path: '/metadata/creationTimestamp', note: 'node created (registration time)' } };
  }
  return {};
}

/**
 * What a `kubectl get nodeclaims` (or v1alpha5 `get machines`) row shows of a NodeClaim that has no Node: its NODE
 * cell empty (status.nodeName is set on registration, docs/karpenter-behaviour.md §4.1), READY Unknown, and an
 * instance behind it (ID, or the instance type Karpenter labels the claim with once launched). Undefined when the row
 * does not show all of that, or when the claim's conditions are in the input (they are read instead).
 */
export function tableClaimWithoutNode(snapshot: Snapshot, claim: NodeClaimView): { instance?: string; type?: string } | undefined {
  const obj = claim.object;
  if (snapshot.partialFrom(obj) === undefined || snapshot.isKnown(obj, '/status/conditions')) return undefined;
  if (!snapshot.isKnown(obj, '/status/nodeName') || claim.nodeName) return undefined;
  const ready = claim.conditions.find((c) => c.type === 'Ready');
  // Unknown while Registered is: a NodeClaim whose Node joined but was refused (Registered=False: the unregistered
  // taint missing, several Nodes matched) rolls up to False, and the row cannot tell those apart from a failed launch.
  if (ready?.status !== 'Unknown' || !snapshot.isKnown(obj, `/status/conditions/${ready.index}/status`)) return undefined;
  const type = obj.metadata.labels?.[INSTANCE_TYPE_LABEL];
  if (!claim.providerID && !type) return undefined;
  if (snapshot.nodeForNodeClaim(claim)) return undefined;
  const instance = claim.providerID?.split('/').pop();
  return { ...(instance ? { instance } : {}), ...(type ? { type } : {}) };
}
