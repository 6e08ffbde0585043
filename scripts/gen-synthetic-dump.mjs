#!/usr/bin/env node
/**
 * Synthetic dump of a Karpenter-managed EKS cluster at the Kubernetes scalability envelope (5,000 nodes,
 * 150,000 pods, 100,000 events), for the benchmark (scripts/bench.mjs) and for manual stress tests.
 *
 *   node scripts/gen-synthetic-dump.mjs --out DIR [--nodes 5000] [--pods 150000] [--events 100000]
 *        [--namespaces 60] [--format json|yaml] [--single-file] [--seed 1] [--log-lines 3000]
 *        [--manifest FILE] [--force] [--quiet]
 *
 * Layout (default): what `kubectl cluster-info dump --all-namespaces --output-directory=DIR` writes
 * (nodes.json, <ns>/{events,replication-controllers,services,daemonsets,deployments,replicasets,pods}.json,
 * typed lists with Go struct key order and 4-space indentation), plus karpenter.json (`kubectl get
 * nodepools,nodeclaims,ec2nodeclasses -o json`: a sorted-key `kind: List`) and the Karpenter controller logs
 * in kube-system/karpenter-<hash>-<id>/logs.txt. `--single-file` writes one `kubectl get … -A -o json` List
 * (cluster.json) instead, plus the controller log as karpenter-controller.log. `--format yaml` prints the same
 * objects the way kubectl's YAML printer does (sorted keys, 2-space indent, unindented sequences); in the
 * directory layout every file after nodes.yaml starts with `---`, because cluster-info dump shares one printer.
 *
 * Why objects are this detailed: the loader's cost is dominated by bytes and by the fields it must skip
 * (env, probes, volume mounts, node image lists, …). A dump of skeleton objects would flatter any parser, so
 * objects carry what `kubectl get -o json` really prints, at realistic sizes: as list items (8 extra spaces of
 * indentation per line) pods are 12–40 KiB, ~18 KiB on average (~14 KiB printed alone), nodes ~26 KiB (40–50
 * image entries), events ~1.2 KiB. Full scale: ~3.6 GB as JSON, ~1.6 GB as YAML, 424 files.
 *
 * Why it is written the way it is:
 * - Deterministic: every stream of random choices is its own seeded PRNG keyed by a label (namespace, kind), so
 *   the same seed gives byte-identical reruns and the same objects in JSON and YAML (only resourceVersions,
 *   a running counter, differ between the directory and the single-file layouts).
 * - Bounded memory: only small per-object "stubs" (names, nodes, phases) are planned up front; full objects are
 *   built one at a time and streamed out. A full-scale single file is > 2 GB, far beyond V8's string limit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { dump as yamlDump } from 'js-yaml';

/** Bump when the output changes, so cached benchmark dumps are regenerated. */
export const GENERATOR_VERSION = 2;

// ---------------------------------------------------------------------------------------------------------
// Fixed cluster facts. The reference time is fixed so that dumps are reproducible and ages are stable.
// ---------------------------------------------------------------------------------------------------------
const NOW = Date.UTC(2025, 5, 16, 9, 30, 0);
const REGION = 'us-east-1';
const CLUSTER = 'prod-use1';
const ACCOUNT = '123456789012';
const ECR = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com`;
const EKS_ECR = `602401143452.dkr.ecr.${REGION}.amazonaws.com`;
const K8S_VERSION = 'v1.32.3-eks-4096722';
const KARPENTER_VERSION = '1.4.0';
const KARPENTER_COMMIT = 'a7e6c4f';
const VPC = 'vpc-0a1b2c3d4e5f60718';
const ZONES = [
  { zone: 'us-east-1a', id: 'use1-az1', octet: 0, subnet: 'subnet-0f1e2d3c4b5a69788' },
  { zone: 'us-east-1b', id: 'use1-az2', octet: 64, subnet: 'subnet-0a9b8c7d6e5f40312' },
  { zone: 'us-east-1c', id: 'use1-az4', octet: 128, subnet: 'subnet-0c2d4e6f8a0b1c3d5' },
  { zone: 'us-east-1d', id: 'use1-az6', octet: 192, subnet: 'subnet-05e7f9a1b3c5d7e9f' },
];
const SECURITY_GROUP = 'sg-0d4c3b2a1f0e9d8c7';

/** cpu, memory GiB, max pods (ENI based), arch, maker, clock MHz, EBS and network bandwidth (Mbps), GPUs. */
const INSTANCE_TYPES = {
  'm5.xlarge': [4, 16, 58, 'amd64', 'intel', 3100, 4750, 1250, 0],
  'm5.2xlarge': [8, 32, 58, 'amd64', 'intel', 3100, 4750, 2500, 0],
  'm5.4xlarge': [16, 64, 234, 'amd64', 'intel', 3100, 4750, 5000, 0],
  'm6i.xlarge': [4, 16, 58, 'amd64', 'intel', 3500, 10000, 1562, 0],
  'm6i.2xlarge': [8, 32, 58, 'amd64', 'intel', 3500, 10000, 3125, 0],
  'm6i.4xlarge': [16, 64, 234, 'amd64', 'intel', 3500, 10000, 6250, 0],
  'm6a.4xlarge': [16, 64, 234, 'amd64', 'amd', 3600, 10000, 6250, 0],
  'm7i.2xlarge': [8, 32, 58, 'amd64', 'intel', 3200, 10000, 3125, 0],
  'm7i.4xlarge': [16, 64, 234, 'amd64', 'intel', 3200, 10000, 6250, 0],
  'c6i.2xlarge': [8, 16, 58, 'amd64', 'intel', 3500, 10000, 3125, 0],
  'c6i.4xlarge': [16, 32, 234, 'amd64', 'intel', 3500, 10000, 6250, 0],
  'c7i.4xlarge': [16, 32, 234, 'amd64', 'intel', 3200, 10000, 6250, 0],
  'r6i.2xlarge': [8, 64, 58, 'amd64', 'intel', 3500, 10000, 3125, 0],
  'r6i.4xlarge': [16, 128, 234, 'amd64', 'intel', 3500, 10000, 6250, 0],
  'm7g.2xlarge': [8, 32, 58, 'arm64', 'aws', 2600, 10000, 3750, 0],
  'c7g.4xlarge': [16, 32, 234, 'arm64', 'aws', 2600, 10000, 7500, 0],
  'g5.xlarge': [4, 16, 58, 'amd64', 'amd', 3300, 3500, 2500, 1],
  'g5.2xlarge': [8, 32, 58, 'amd64', 'amd', 3300, 3500, 5000, 1],
  't3.large': [2, 8, 35, 'amd64', 'intel', 2500, 695, 512, 0],
};

/** Ten v1 NodePools; `share` is the fraction of Karpenter nodes they own. */
const NODEPOOLS = [
  {
    name: 'default',
    share: 0.24,
    nodeClass: 'default',
    types: ['m6i.2xlarge', 'm6i.4xlarge', 'm5.2xlarge', 'm7i.2xlarge', 'm6a.4xlarge'],
    capacity: ['on-demand', 'spot'],
    weight: 10,
  },
  {
    name: 'general-spot',
    share: 0.2,
    nodeClass: 'default',
    types: ['m5.4xlarge', 'm6i.4xlarge', 'm7i.4xlarge', 'm6a.4xlarge'],
    capacity: ['spot'],
    weight: 50,
  },
  { name: 'compute', share: 0.12, nodeClass: 'default', types: ['c6i.2xlarge', 'c6i.4xlarge', 'c7i.4xlarge'], capacity: ['on-demand', 'spot'] },
  { name: 'memory', share: 0.1, nodeClass: 'default', types: ['r6i.2xlarge', 'r6i.4xlarge'], capacity: ['on-demand'] },
  { name: 'arm64', share: 0.1, nodeClass: 'default', types: ['m7g.2xlarge', 'c7g.4xlarge'], capacity: ['on-demand', 'spot'] },
  {
    name: 'gpu',
    share: 0.03,
    nodeClass: 'gpu',
    types: ['g5.xlarge', 'g5.2xlarge'],
    capacity: ['on-demand'],
    taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
  },
  {
    name: 'batch-spot',
    share: 0.08,
    nodeClass: 'default',
    types: ['c6i.4xlarge', 'm6i.4xlarge', 'c7i.4xlarge'],
    capacity: ['spot'],
    policy: 'WhenEmpty',
    consolidateAfter: '30s',
    taints: [{ key: 'workload-type', value: 'batch', effect: 'NoSchedule' }],
  },
  {
    name: 'ci-runners',
    share: 0.05,
    nodeClass: 'bottlerocket',
    types: ['c6i.4xlarge', 'm6i.4xlarge'],
    capacity: ['spot', 'on-demand'],
    taints: [{ key: 'ci', value: 'true', effect: 'NoSchedule' }],
  },
  {
    name: 'stateful',
    share: 0.05,
    nodeClass: 'default',
    types: ['r6i.2xlarge', 'm6i.2xlarge'],
    capacity: ['on-demand'],
    consolidateAfter: 'Never',
    budgets: [{ nodes: '0', reasons: ['Underutilized'] }, { nodes: '1' }],
  },
  { name: 'system-critical', share: 0.03, nodeClass: 'default', types: ['m6i.xlarge', 'm6i.2xlarge'], capacity: ['on-demand'], weight: 100 },
];

const NODECLASSES = [
  {
    name: 'default',
    alias: 'al2023@latest',
    ami: 'ami-0c1f2a3b4c5d6e7f8',
    amiArm: 'ami-0a9b8c7d6e5f4a3b2',
    amiName: 'amazon-eks-node-al2023-x86_64-standard-1.32-v20250610',
  },
  { name: 'gpu', alias: 'al2023@v20250610', ami: 'ami-0e4d3c2b1a0f9e8d7', amiName: 'amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250610' },
  {
    name: 'bottlerocket',
    alias: 'bottlerocket@latest',
    ami: 'ami-0b7c6d5e4f3a2b1c0',
    amiArm: 'ami-0f0e1d2c3b4a59687',
    amiName: 'bottlerocket-aws-k8s-1.32-x86_64-v1.40.0-a1b2c3d4',
  },
];

/** DaemonSets that run on every node (namespace, name, image, hostNetwork). */
const DAEMONSETS = [
  { ns: 'kube-system', name: 'aws-node', image: `${EKS_ECR}/amazon-k8s-cni:v1.19.5-eksbuild.3`, hostNetwork: true, component: 'aws-node' },
  { ns: 'kube-system', name: 'kube-proxy', image: `${EKS_ECR}/eks/kube-proxy:v1.32.3-minimal-eksbuild.7`, hostNetwork: true, component: 'kube-proxy' },
  { ns: 'kube-system', name: 'ebs-csi-node', image: `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.44.0`, hostNetwork: false, component: 'csi-driver' },
  { ns: 'kube-system', name: 'eks-pod-identity-agent', image: `${EKS_ECR}/eks/eks-pod-identity-agent:0.1.29`, hostNetwork: true, component: 'agent' },
  { ns: 'monitoring', name: 'prometheus-node-exporter', image: 'quay.io/prometheus/node-exporter:v1.9.1', hostNetwork: true, component: 'metrics' },
  { ns: 'logging', name: 'fluent-bit', image: 'cr.fluentbit.io/fluent/fluent-bit:4.0.3', hostNetwork: false, component: 'logging' },
];

/** Namespaces with fixed, well-known workloads. Everything else is an application namespace. */
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'monitoring', 'logging', 'cert-manager', 'ingress-nginx', 'argocd', 'external-dns'];
/** @type {any} */ const SYSTEM_DEPLOYMENTS = [
  // ns, name, replicas, image, onManagedNodes, kind
  ['kube-system', 'karpenter', 2, `public.ecr.aws/karpenter/controller:${KARPENTER_VERSION}`, true],
  ['kube-system', 'coredns', 2, `${EKS_ECR}/eks/coredns:v1.11.4-eksbuild.14`, true],
  ['kube-system', 'ebs-csi-controller', 2, `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.44.0`, false],
  ['kube-system', 'aws-load-balancer-controller', 2, 'public.ecr.aws/eks/aws-load-balancer-controller:v2.13.2', false],
  ['kube-system', 'metrics-server', 2, 'registry.k8s.io/metrics-server/metrics-server:v0.7.2', false],
  ['monitoring', 'kube-prometheus-stack-operator', 1, 'quay.io/prometheus-operator/prometheus-operator:v0.83.0', false],
  ['monitoring', 'kube-state-metrics', 1, 'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.15.0', false],
  ['monitoring', 'grafana', 1, 'docker.io/grafana/grafana:12.0.1', false],
  ['monitoring', 'prometheus-kube-prometheus-stack-prometheus', 2, 'quay.io/prometheus/prometheus:v3.4.1', false, 'StatefulSet'],
  ['monitoring', 'alertmanager-kube-prometheus-stack-alertmanager', 3, 'quay.io/prometheus/alertmanager:v0.28.1', false, 'StatefulSet'],
  ['cert-manager', 'cert-manager', 2, 'quay.io/jetstack/cert-manager-controller:v1.17.2', false],
  ['cert-manager', 'cert-manager-cainjector', 1, 'quay.io/jetstack/cert-manager-cainjector:v1.17.2', false],
  ['cert-manager', 'cert-manager-webhook', 2, 'quay.io/jetstack/cert-manager-webhook:v1.17.2', false],
  ['ingress-nginx', 'ingress-nginx-controller', 3, 'registry.k8s.io/ingress-nginx/controller:v1.12.3', false],
  ['argocd', 'argocd-server', 2, 'quay.io/argoproj/argocd:v3.0.6', false],
  ['argocd', 'argocd-repo-server', 2, 'quay.io/argoproj/argocd:v3.0.6', false],
  ['argocd', 'argocd-application-controller', 1, 'quay.io/argoproj/argocd:v3.0.6', false, 'StatefulSet'],
  ['external-dns', 'external-dns', 1, 'registry.k8s.io/external-dns/external-dns:v0.17.0', false],
  ['default', 'echo-server', 2, 'docker.io/ealen/echo-server:0.9.2', false],
];

const APP_WORDS = [
  'payments',
  'checkout',
  'search',
  'catalog',
  'orders',
  'billing',
  'identity',
  'notifications',
  'recommendations',
  'inventory',
  'shipping',
  'analytics',
  'ml-serving',
  'data-pipeline',
  'ci',
  'fraud',
  'pricing',
  'reviews',
  'ads',
  'media',
  'messaging',
  'loyalty',
  'support',
  'onboarding',
  'ledger',
  'risk',
  'reporting',
  'gateway',
  'profile',
  'content',
  'cart',
  'wishlist',
  'geo',
  'feeds',
  'streaming',
  'telemetry',
  'experiments',
  'partners',
  'tax',
  'invoicing',
  'kyc',
  'auth',
  'sessions',
  'marketplace',
  'rewards',
  'subscriptions',
  'warehouse',
  'routing',
  'dispatch',
  'forecasting',
  'etl',
  'feature-store',
  'vector-db',
  'chat',
  'voice',
  'maps',
  'booking',
  'returns',
];
const SIDECAR_IMAGES = [
  'docker.io/envoyproxy/envoy:v1.34.1',
  'cr.fluentbit.io/fluent/fluent-bit:4.0.3',
  'public.ecr.aws/aws-observability/aws-otel-collector:v0.43.3',
];
const APP_PARTS = [
  'api',
  'worker',
  'consumer',
  'web',
  'scheduler',
  'grpc',
  'cache-warmer',
  'sync',
  'indexer',
  'processor',
  'frontend',
  'backend',
  'router',
  'aggregator',
  'exporter',
];

// ---------------------------------------------------------------------------------------------------------
// Seeded randomness. mulberry32 is tiny and fast; each label gets its own stream (see file header).
// ---------------------------------------------------------------------------------------------------------
function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
const K8S_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'; // k8s.io/apimachinery rand.String: no vowels, no 0/1/3
const HEX = '0123456789abcdef';

class Rng {
  constructor(seed, label) {
    this.s = (fnv1a(`${seed}:${label}`) ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  }
  next() {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick(a) {
    return a[Math.floor(this.next() * a.length)];
  }
  chance(p) {
    return this.next() < p;
  }
  /** Choose from [[value, weight], …]. */
  weighted(pairs) {
    let total = 0;
    for (const p of pairs) total += p[1];
    let x = this.next() * total;
    for (const p of pairs) if ((x -= p[1]) < 0) return p[0];
    return pairs[pairs.length - 1][0];
  }
  hex(n) {
    let s = '';
    while (s.length < n) s += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, '0');
    return s.slice(0, n);
  }
  suffix(n) {
    let s = '';
    for (let i = 0; i < n; i++) s += K8S_ALPHABET[Math.floor(this.next() * K8S_ALPHABET.length)];
    return s;
  }
  uuid() {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${HEX[8 + (parseInt(h[16], 16) & 3)]}${h.slice(17, 20)}-${h.slice(20)}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------
/** RFC3339 at second precision, as metav1.Time marshals. */
const ts = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
/** RFC3339 with microseconds, as metav1.MicroTime marshals (eventTime of events.k8s.io-recorded events). */
const microTs = (ms, rng) => new Date(ms).toISOString().replace('Z', `${String(rng.int(0, 999)).padStart(3, '0')}Z`);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
let rvCounter = 700_000_000;
/** resourceVersions only need to look like etcd revisions; a global counter keeps them unique. */
const rv = () => String(++rvCounter);

function ipOf(zone, rng) {
  return `10.20.${zone.octet + rng.int(0, 63)}.${rng.int(1, 254)}`;
}
const hostnameOf = (ip) => `ip-${ip.replaceAll('.', '-')}.ec2.internal`;

function memKi(gi) {
  // EC2 reports a little less than the nominal size; Karpenter's VM_MEMORY_OVERHEAD_PERCENT is 7.5 %.
  return Math.floor(gi * 1024 * 1024 * 0.965);
}
function quantityMi(mi) {
  return mi % 1024 === 0 ? `${mi / 1024}Gi` : `${mi}Mi`;
}

// ---------------------------------------------------------------------------------------------------------
// Image pool: digests and sizes shared by node image lists and pod statuses.
// ---------------------------------------------------------------------------------------------------------
function makeImage(rng, ref) {
  const at = ref.lastIndexOf(':');
  const repo = ref.slice(0, at);
  return { ref, repo, digest: `sha256:${rng.hex(64)}`, size: rng.int(8_000_000, 900_000_000) };
}

// ---------------------------------------------------------------------------------------------------------
// Planning: nodes, namespaces and workloads as small records. Full objects are derived from them lazily.
// ---------------------------------------------------------------------------------------------------------
export function planCluster(opts) {
  const { seed } = opts;
  const r = new Rng(seed, 'plan');

  // Nodes. A few EKS managed-node-group nodes host the Karpenter controller (it must not run on nodes it
  // manages); all the others are Karpenter nodes with a NodeClaim each.
  const mngCount = Math.min(opts.nodes, Math.max(2, Math.min(6, Math.ceil(opts.nodes / 1000) + 1)));
  const nodes = [];
  const usedIps = new Set();
  const usedClaims = new Set();
  const uniqueClaim = (pool) => {
    for (;;) {
      const name = `${pool}-${r.suffix(5)}`;
      if (!usedClaims.has(name)) {
        usedClaims.add(name);
        return name;
      }
    }
  };
  const uniqueIp = (zone) => {
    for (;;) {
      const ip = ipOf(zone, r);
      if (!usedIps.has(ip)) {
        usedIps.add(ip);
        return ip;
      }
    }
  };
  for (let i = 0; i < opts.nodes; i++) {
    const mng = i < mngCount;
    const pool = mng ? null : r.weighted(NODEPOOLS.map((p) => [p, p.share]));
    const zone = ZONES[i % ZONES.length];
    const ip = uniqueIp(zone);
    const type = mng ? 't3.large' : r.pick(pool.types);
    const capacityType = mng ? 'on-demand' : r.pick(pool.capacity);
    const created = mng ? NOW - r.int(20 * DAY, 40 * DAY) : NOW - r.int(10 * MIN, 29 * DAY);
    // Node states worth diagnosing, at low rates as in a real large cluster.
    let state = 'ready';
    if (!mng) {
      state = r.weighted([
        ['ready', 0.975],
        ['notready', 0.006], // Ready=Unknown, "Kubelet stopped posting node status."
        ['disrupting', 0.01], // karpenter.sh/disrupted taint, being drained
        ['uninitialized', 0.004], // registered but a startup taint lingers
        ['underused', 0.005], // empty-ish node kept alive by a do-not-disrupt pod / nomination
      ]);
    }
    const instanceId = `i-0${r.hex(16)}`;
    nodes.push({
      index: i,
      mng,
      name: hostnameOf(ip),
      ip,
      zone,
      type,
      spec: INSTANCE_TYPES[type],
      pool,
      capacityType,
      created,
      state,
      instanceId,
      providerID: `aws:///${zone.zone}/${instanceId}`,
      uid: r.uuid(),
      nodeclaimName: mng ? null : uniqueClaim(pool.name),
      nodeclaimUid: r.uuid(),
      nodegroup: mng ? `system-${r.suffix(8)}` : null,
    });
  }
  const karpenterNodes = nodes.filter((n) => !n.mng);
  const byPool = new Map(NODEPOOLS.map((p) => [p.name, []]));
  for (const n of karpenterNodes) if (n.state !== 'notready') byPool.get(n.pool.name).push(n);
  const schedulable = karpenterNodes.filter((n) => n.state === 'ready' || n.state === 'underused' || n.state === 'disrupting');
  const mngNodes = nodes.filter((n) => n.mng);

  // Namespaces: the well-known system ones, then application namespaces.
  const nsCount = Math.max(opts.namespaces, SYSTEM_NAMESPACES.length + 1);
  const appNs = [];
  for (let i = 0; appNs.length < nsCount - SYSTEM_NAMESPACES.length; i++) {
    const word = APP_WORDS[i % APP_WORDS.length];
    appNs.push(i < APP_WORDS.length ? word : `${word}-${Math.floor(i / APP_WORDS.length) + 1}`);
  }
  const namespaces = [...SYSTEM_NAMESPACES, ...appNs].map((name) => ({ name, uid: r.uuid(), workloads: [], daemonsets: [], pods: 0 }));
  const nsByName = new Map(namespaces.map((n) => [n.name, n]));

  const images = new Map();
  const imageFor = (ref) => {
    let img = images.get(ref);
    if (!img) images.set(ref, (img = makeImage(r, ref)));
    return img;
  };

  // DaemonSets: one pod per node. If the pod budget is too small for all of them, keep the first few.
  let dsList = DAEMONSETS.slice();
  while (dsList.length > 1 && dsList.length * nodes.length > opts.pods * 0.5) dsList.pop();
  for (const d of dsList) {
    const ns = nsByName.get(d.ns);
    ns.daemonsets.push({ ...d, uid: r.uuid(), hash: r.suffix(10), img: imageFor(d.image), nodes });
    ns.pods += nodes.length;
  }
  const gpuNodes = karpenterNodes.filter((n) => n.pool.name === 'gpu');
  if (gpuNodes.length) {
    const ns = nsByName.get('kube-system');
    const image = 'nvcr.io/nvidia/k8s-device-plugin:v0.17.2';
    ns.daemonsets.push({
      ns: 'kube-system',
      name: 'nvidia-device-plugin-daemonset',
      image,
      hostNetwork: false,
      component: 'device-plugin',
      uid: r.uuid(),
      hash: r.suffix(10),
      img: imageFor(image),
      nodes: gpuNodes,
      nodeSelector: { 'karpenter.sh/nodepool': 'gpu' },
    });
    ns.pods += gpuNodes.length;
  }
  for (const ref of SIDECAR_IMAGES) imageFor(ref);
  let budget = opts.pods - namespaces.reduce((s, n) => s + n.pods, 0);

  const newWorkload = (ns, name, kind, replicas, imageRef, extra = {}) => {
    const w = {
      ns: ns.name,
      name,
      kind,
      replicas,
      uid: r.uuid(),
      rsUid: r.uuid(),
      hash: r.suffix(r.int(9, 10)),
      oldHashes:
        kind === 'Deployment'
          ? Array.from(
              {
                length: r.weighted([
                  [0, 0.6],
                  [1, 0.3],
                  [2, 0.1],
                ]),
              },
              () => ({ hash: r.suffix(10), uid: r.uuid() }),
            )
          : [],
      img: imageFor(imageRef),
      created: NOW - r.int(3 * DAY, 400 * DAY),
      seed: r.int(0, 2 ** 31),
      ...extra,
    };
    ns.workloads.push(w);
    ns.pods += replicas;
    budget -= replicas;
    return w;
  };
  for (const [nsName, name, replicas, image, onMng, kind] of SYSTEM_DEPLOYMENTS) {
    if (budget <= 0) break;
    const n = Math.min(replicas, budget);
    newWorkload(nsByName.get(nsName), name, kind ?? 'Deployment', n, image, { system: true, onMng, pool: onMng ? null : NODEPOOLS[9] });
  }

  // Application workloads share the remaining pods; namespace sizes follow a Zipf-like law (a few big teams,
  // many small ones), capped so that no per-namespace pods.json exceeds V8's string limit at full scale.
  const appNamespaces = namespaces.filter((n) => !SYSTEM_NAMESPACES.includes(n.name));
  const weights = appNamespaces.map((_, i) => 1 / (i + 2));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const appBudget = Math.max(0, budget);
  let assigned = 0;
  appNamespaces.forEach((ns, i) => {
    const share = i === appNamespaces.length - 1 ? appBudget - assigned : Math.round((appBudget * weights[i]) / wsum);
    assigned += share;
    let left = share;
    const nr = new Rng(seed, `workloads:${ns.name}`);
    while (left > 0) {
      const kind = nr.weighted([
        ['Deployment', 0.82],
        ['StatefulSet', 0.1],
        ['Job', 0.08],
      ]);
      let replicas =
        kind === 'Job'
          ? nr.weighted([
              [1, 0.7],
              [4, 0.2],
              [10, 0.1],
            ])
          : nr.weighted([
              [1, 10],
              [2, 20],
              [3, 25],
              [4, 10],
              [6, 10],
              [10, 10],
              [20, 8],
              [50, 5],
              [100, 2],
            ]);
      replicas = Math.min(replicas, left);
      left -= replicas;
      const part = nr.pick(APP_PARTS);
      const base = kind === 'Job' ? `${ns.name}-${part}-${nr.int(29100000, 29170000)}` : `${ns.name}-${part}`;
      const name = ns.workloads.some((w) => w.name === base) ? `${base}-${nr.suffix(4)}` : base;
      const special = ns.name === 'ml-serving' ? 'gpu' : ns.name === 'ci' ? 'ci' : kind === 'Job' ? 'batch' : kind === 'StatefulSet' ? 'stateful' : null;
      const poolName =
        special === 'gpu'
          ? 'gpu'
          : special === 'ci'
            ? 'ci-runners'
            : special === 'batch'
              ? 'batch-spot'
              : special === 'stateful'
                ? 'stateful'
                : nr.weighted([
                    ['default', 30],
                    ['general-spot', 25],
                    ['compute', 15],
                    ['memory', 12],
                    ['arm64', 12],
                    ['system-critical', 2],
                  ]);
      const version = `${nr.int(1, 9)}.${nr.int(0, 40)}.${nr.int(0, 20)}`;
      newWorkload(ns, name, kind, replicas, `${ECR}/${ns.name}/${part}:v${version}`, {
        pool: NODEPOOLS.find((p) => p.name === poolName),
        version,
        part,
        selector: nr.weighted([
          ['none', 0.6],
          ['nodeSelector', 0.28],
          ['affinity', 0.12],
        ]),
        doNotDisrupt: kind !== 'Job' && nr.chance(0.03),
        pendingRate: nr.chance(0.05) ? 0.3 : 0.002,
        crashRate: nr.chance(0.04) ? 0.4 : 0.003,
        sidecars: nr.weighted([
          [0, 0.84],
          [1, 0.14],
          [2, 0.02],
        ]),
        init: nr.chance(0.1),
        irsa: nr.chance(0.5),
        envCount: nr.int(6, 14), // plus 2 secret refs (and 2 IRSA vars): 8–18 env vars
        cpuM: nr.pick([50, 100, 200, 250, 500, 1000, 2000]),
        memMi: nr.pick([128, 256, 512, 1024, 2048, 4096]),
        port: nr.pick([8080, 8000, 3000, 9090, 5000, 8443]),
        team: nr.pick(['platform', 'core', 'growth', 'data', 'infra', 'commerce']),
        priorityClass: nr.chance(0.15) ? 'high-priority' : null,
        spread: nr.chance(0.25),
      });
    }
  });

  // Node image lists draw from these: every node has the system images, plus a sample of the rest.
  const imageList = [...images.values()];
  const systemImages = imageList.filter((img) => img.ref.includes('602401143452') || DAEMONSETS.some((d) => d.image === img.ref));
  return { nodes, karpenterNodes, mngNodes, byPool, schedulable, namespaces, images, imageList, systemImages, seed, gpuNodes };
}

// ---------------------------------------------------------------------------------------------------------
// Pod stubs: per namespace, cheap, deterministic; enough for events to refer to pods and pods to nodes.
// ---------------------------------------------------------------------------------------------------------
function podStubs(plan, ns) {
  const r = new Rng(plan.seed, `stubs:${ns.name}`);
  const stubs = [];
  // Five random characters collide after a few thousand draws (5,000 DaemonSet pods share a prefix); the API
  // server would reject the duplicate and generateName would retry, so retry here too.
  const taken = new Set();
  const unique = (prefix) => {
    for (;;) {
      const name = `${prefix}-${r.suffix(5)}`;
      if (!taken.has(name)) {
        taken.add(name);
        return name;
      }
    }
  };
  for (const d of ns.daemonsets) {
    for (const node of d.nodes) {
      const crash = node.state === 'notready';
      stubs.push({
        w: d,
        kind: 'DaemonSet',
        name: unique(d.name),
        uid: r.uuid(),
        node,
        phase: 'Running',
        created: Math.max(node.created + r.int(5_000, 40_000), NOW - r.int(DAY, 20 * DAY)),
        crash,
        ip: d.hostNetwork ? node.ip : ipOf(node.zone, r),
      });
    }
  }
  for (const w of ns.workloads) {
    for (let i = 0; i < w.replicas; i++) {
      let name;
      if (w.kind === 'Deployment') name = unique(`${w.name}-${w.hash}`);
      else if (w.kind === 'StatefulSet') name = `${w.name}-${i}`;
      else name = unique(w.name);
      let node = null;
      const pending = !w.system && r.chance(w.pendingRate);
      if (!pending) {
        if (w.onMng) node = plan.mngNodes[i % plan.mngNodes.length];
        else {
          const pool = w.pool && plan.byPool.get(w.pool.name);
          const candidates = pool && pool.length ? pool : plan.schedulable.length ? plan.schedulable : plan.nodes;
          node = r.pick(candidates);
        }
      }
      const phase = pending ? 'Pending' : w.kind === 'Job' && r.chance(0.6) ? 'Succeeded' : 'Running';
      const created = node ? Math.max(node.created + r.int(20_000, 300_000), NOW - r.int(10 * MIN, 25 * DAY)) : NOW - r.int(2 * MIN, 3 * HOUR);
      stubs.push({
        w,
        kind: w.kind,
        index: i,
        name,
        uid: r.uuid(),
        node,
        phase,
        created: Math.min(created, NOW - 60_000),
        crash: !pending && phase === 'Running' && r.chance(w.crashRate ?? 0),
        ip: node ? ipOf(node.zone, r) : null,
        dnd: w.doNotDisrupt,
      });
    }
  }
  return stubs;
}

// ---------------------------------------------------------------------------------------------------------
// Object builders. Key insertion order follows the Go structs (typed lists keep it; sorted outputs re-sort).
// ---------------------------------------------------------------------------------------------------------
const NODEPOOL_HASH = new Map(NODEPOOLS.map((p) => [p.name, String(fnv1a(`np:${p.name}`) * 4096 + 1234567)]));
const NODECLASS_HASH = new Map(NODECLASSES.map((c) => [c.name, String(fnv1a(`nc:${c.name}`) * 8192 + 7654321)]));

function nodeLabels(n) {
  const [cpu, mem, , arch, maker, clock, ebs, net, gpus] = n.spec;
  const [family, size] = n.type.split('.');
  const labels = {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/instance-type': n.type,
    'beta.kubernetes.io/os': 'linux',
    'failure-domain.beta.kubernetes.io/region': REGION,
    'failure-domain.beta.kubernetes.io/zone': n.zone.zone,
    'k8s.io/cloud-provider-aws': '7a5b1c9e3f0d2e4a6b8c0d1e2f3a4b5c',
  };
  if (n.mng) {
    Object.assign(labels, {
      'eks.amazonaws.com/capacityType': 'ON_DEMAND',
      'eks.amazonaws.com/nodegroup': n.nodegroup,
      'eks.amazonaws.com/nodegroup-image': 'ami-0c1f2a3b4c5d6e7f8',
      'eks.amazonaws.com/sourceLaunchTemplateId': 'lt-0123456789abcdef0',
      'eks.amazonaws.com/sourceLaunchTemplateVersion': '3',
      role: 'system',
    });
  } else {
    Object.assign(labels, {
      'karpenter.k8s.aws/ec2nodeclass': n.pool.nodeClass,
      'karpenter.k8s.aws/instance-category': family[0],
      'karpenter.k8s.aws/instance-cpu': String(cpu),
      'karpenter.k8s.aws/instance-cpu-manufacturer': maker,
      'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz': String(clock),
      'karpenter.k8s.aws/instance-ebs-bandwidth': String(ebs),
      'karpenter.k8s.aws/instance-encryption-in-transit-supported': 'true',
      'karpenter.k8s.aws/instance-family': family,
      'karpenter.k8s.aws/instance-generation': family.replace(/\D/g, ''),
      'karpenter.k8s.aws/instance-hypervisor': 'nitro',
      'karpenter.k8s.aws/instance-memory': String(mem * 1024),
      'karpenter.k8s.aws/instance-network-bandwidth': String(net),
      'karpenter.k8s.aws/instance-size': size,
    });
    if (gpus)
      Object.assign(labels, {
        'karpenter.k8s.aws/instance-gpu-count': String(gpus),
        'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
        'karpenter.k8s.aws/instance-gpu-memory': '24576',
        'karpenter.k8s.aws/instance-gpu-name': 'a10g',
      });
    labels['karpenter.sh/capacity-type'] = n.capacityType;
    if (n.state !== 'uninitialized') labels['karpenter.sh/initialized'] = 'true';
    labels['karpenter.sh/nodepool'] = n.pool.name;
    labels['karpenter.sh/registered'] = 'true';
  }
  Object.assign(labels, {
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': n.name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': n.type,
    'topology.ebs.csi.aws.com/zone': n.zone.zone,
    'topology.k8s.aws/zone-id': n.zone.id,
    'topology.kubernetes.io/region': REGION,
    'topology.kubernetes.io/zone': n.zone.zone,
  });
  if (!n.mng && n.state === 'disrupting') labels['node.kubernetes.io/exclude-from-external-load-balancers'] = 'karpenter';
  return labels;
}

function nodeResources(n) {
  const [cpu, mem, pods, , , , , , gpus] = n.spec;
  const capacity = {
    cpu: String(cpu),
    'ephemeral-storage': '104845292Ki',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: `${memKi(mem)}Ki`,
    pods: String(pods),
  };
  const reservedCpu = cpu <= 4 ? 80 : cpu <= 8 ? 90 : 110;
  const reservedMemMi = 255 + 11 * pods + 100;
  const allocatable = {
    cpu: `${cpu * 1000 - reservedCpu}m`,
    'ephemeral-storage': '95551679124',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: `${memKi(mem) - reservedMemMi * 1024}Ki`,
    pods: String(pods),
  };
  if (gpus) capacity['nvidia.com/gpu'] = allocatable['nvidia.com/gpu'] = String(gpus);
  return { capacity, allocatable };
}

function buildNode(plan, n) {
  const r = new Rng(plan.seed, `node:${n.name}`);
  const bottlerocket = n.pool?.nodeClass === 'bottlerocket';
  const arch = n.spec[3];
  const annotations = { 'alpha.kubernetes.io/provided-node-ip': n.ip, 'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"${n.instanceId}"}` };
  if (!n.mng) {
    Object.assign(annotations, {
      'karpenter.k8s.aws/ec2nodeclass-hash': NODECLASS_HASH.get(n.pool.nodeClass),
      'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
      'karpenter.sh/nodepool-hash': NODEPOOL_HASH.get(n.pool.name),
      'karpenter.sh/nodepool-hash-version': 'v3',
    });
  }
  annotations['node.alpha.kubernetes.io/ttl'] = '0';
  annotations['volumes.kubernetes.io/controller-managed-attach-detach'] = 'true';
  const metadata = { name: n.name, uid: n.uid, resourceVersion: rv(), creationTimestamp: ts(n.created), labels: nodeLabels(n), annotations };
  if (!n.mng) {
    metadata.ownerReferences = [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: n.nodeclaimName, uid: n.nodeclaimUid, blockOwnerDeletion: true }];
    metadata.finalizers = ['karpenter.sh/termination'];
  }

  const taints = [];
  if (n.pool?.taints) for (const t of n.pool.taints) taints.push({ ...t });
  if (n.state === 'disrupting') taints.push({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
  if (n.state === 'uninitialized') taints.push({ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' });
  const notReadySince = NOW - r.int(20 * MIN, 5 * HOUR);
  if (n.state === 'notready') {
    taints.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule', timeAdded: ts(notReadySince) });
    taints.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: ts(notReadySince + 5000) });
  }
  const spec = { providerID: n.providerID };
  if (taints.length) spec.taints = taints;

  const heartbeat = n.state === 'notready' ? notReadySince - r.int(30_000, 60_000) : NOW - r.int(5_000, 240_000);
  const since = ts(n.created + r.int(30_000, 90_000));
  const cond = (type, reason, message, status = 'False') => ({ type, status, lastHeartbeatTime: ts(heartbeat), lastTransitionTime: since, reason, message });
  const conditions =
    n.state === 'notready'
      ? [
          {
            type: 'MemoryPressure',
            status: 'Unknown',
            lastHeartbeatTime: ts(heartbeat),
            lastTransitionTime: ts(notReadySince),
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
          {
            type: 'DiskPressure',
            status: 'Unknown',
            lastHeartbeatTime: ts(heartbeat),
            lastTransitionTime: ts(notReadySince),
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
          {
            type: 'PIDPressure',
            status: 'Unknown',
            lastHeartbeatTime: ts(heartbeat),
            lastTransitionTime: ts(notReadySince),
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
          {
            type: 'Ready',
            status: 'Unknown',
            lastHeartbeatTime: ts(heartbeat),
            lastTransitionTime: ts(notReadySince),
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
          },
        ]
      : [
          cond('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
          cond('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
          cond('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
          cond('Ready', 'KubeletReady', 'kubelet is posting ready status', 'True'),
        ];

  // Images are most of a node's bytes: the system images every node pulls, then a random sample of the
  // application images that ran there.
  const count = r.int(40, 50);
  const chosen = new Set(plan.systemImages);
  for (let guard = 0; chosen.size < count && guard < count * 4; guard++) chosen.add(r.pick(plan.imageList));
  const images = [...chosen].map((img) => ({ names: [`${img.repo}@${img.digest}`, img.ref], sizeBytes: img.size }));
  images.push({
    names: [
      `${EKS_ECR}/eks/pause@sha256:529cf6b1b6e5b76e901abc43aee825badbd93f9c5ee5f1e316d46a83abbce5a2`,
      `${EKS_ECR}/eks/pause:3.10`,
      'localhost/kubernetes/pause:latest',
    ],
    sizeBytes: 318731,
  });

  /** @type {any} */ const status = {
    ...nodeResources(n),
    conditions,
    addresses: [
      { type: 'InternalIP', address: n.ip },
      { type: 'InternalDNS', address: n.name },
      { type: 'Hostname', address: n.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: r.hex(32),
      systemUUID: `ec2${r.hex(5)}-${r.hex(4)}-${r.hex(4)}-${r.hex(4)}-${r.hex(12)}`,
      bootID: r.uuid(),
      kernelVersion: bottlerocket ? '6.1.140' : arch === 'arm64' ? '6.1.140-154.222.amzn2023.aarch64' : '6.1.140-154.222.amzn2023.x86_64',
      osImage: bottlerocket ? 'Bottlerocket OS 1.40.0 (aws-k8s-1.32)' : 'Amazon Linux 2023.7.20250609',
      containerRuntimeVersion: bottlerocket ? 'containerd://2.0.5+bottlerocket' : 'containerd://1.7.27',
      kubeletVersion: K8S_VERSION,
      kubeProxyVersion: K8S_VERSION,
      operatingSystem: 'linux',
      architecture: arch,
    },
    images,
  };
  if (r.chance(0.15)) {
    const vols = Array.from({ length: r.int(1, 3) }, () => `kubernetes.io/csi/ebs.csi.aws.com^vol-0${r.hex(16)}`);
    status.volumesInUse = vols;
    status.volumesAttached = vols.map((name) => ({ name, devicePath: '' }));
  }
  status.runtimeHandlers = [
    { name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
    { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
  ];
  status.features = { supplementalGroupsPolicy: true };
  return { metadata, spec, status };
}

function requirementsFor(pool) {
  const req = [
    { key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: [...new Set(pool.types.map((t) => t.split('.')[0]))].sort() },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: pool.capacity.slice().sort() },
    { key: 'kubernetes.io/arch', operator: 'In', values: [...new Set(pool.types.map((t) => INSTANCE_TYPES[t][3]))].sort() },
    { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
    { key: 'topology.kubernetes.io/zone', operator: 'In', values: ZONES.map((z) => z.zone) },
  ];
  if (pool.types.length > 2) req.push({ key: 'node.kubernetes.io/instance-type', operator: 'In', values: pool.types.slice().sort(), minValues: 2 });
  return req;
}

function buildNodePool(plan, pool, nodeCount) {
  const r = new Rng(plan.seed, `nodepool:${pool.name}`);
  const created = NOW - r.int(60 * DAY, 300 * DAY);
  const spec = {
    disruption: {
      budgets: pool.budgets ?? [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted', 'Underutilized'] }],
      consolidateAfter: pool.consolidateAfter ?? '1m',
      consolidationPolicy: pool.policy ?? 'WhenEmptyOrUnderutilized',
    },
    limits: { cpu: String(pool.name === 'gpu' ? 2000 : 200000), memory: pool.name === 'gpu' ? '8000Gi' : '800000Gi' },
    template: {
      metadata: { labels: { 'karpenter.sh/team': 'platform', 'nodepool.example.com/name': pool.name } },
      spec: {
        expireAfter: pool.name === 'stateful' ? 'Never' : '720h',
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: pool.nodeClass },
        requirements: requirementsFor(pool),
        ...(pool.taints ? { taints: pool.taints } : {}),
        terminationGracePeriod: '48h',
      },
    },
  };
  if (pool.weight) spec.weight = pool.weight;
  const condTime = ts(created + 60_000);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: {
      annotations: {
        'karpenter.sh/nodepool-hash': NODEPOOL_HASH.get(pool.name),
        'karpenter.sh/nodepool-hash-version': 'v3',
        'kubectl.kubernetes.io/last-applied-configuration':
          JSON.stringify({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { annotations: {}, name: pool.name }, spec }) + '\n',
      },
      creationTimestamp: ts(created),
      generation: r.int(1, 12),
      name: pool.name,
      resourceVersion: rv(),
      uid: poolUid(plan, pool),
    },
    spec,
    status: {
      conditions: ['NodeClassReady', 'NodeRegistrationHealthy', 'Ready', 'ValidationSucceeded'].map((type) => ({
        lastTransitionTime: condTime,
        message: '',
        observedGeneration: 1,
        reason: type,
        status: 'True',
        type,
      })),
      resources: {
        cpu: String(nodeCount * 8),
        'ephemeral-storage': `${nodeCount * 104845292}Ki`,
        memory: `${nodeCount * 32 * 1024 * 1024}Ki`,
        nodes: String(nodeCount),
        pods: String(nodeCount * 58),
      },
    },
  };
}
const poolUid = (plan, pool) => new Rng(plan.seed, `uid:nodepool:${pool.name}`).uuid();

function buildNodeClass(plan, c) {
  const r = new Rng(plan.seed, `nodeclass:${c.name}`);
  const created = NOW - r.int(100 * DAY, 300 * DAY);
  const condTime = ts(NOW - r.int(DAY, 10 * DAY));
  const spec = {
    amiSelectorTerms: [{ alias: c.alias }],
    blockDeviceMappings: [
      {
        deviceName: c.name === 'bottlerocket' ? '/dev/xvdb' : '/dev/xvda',
        ebs: { deleteOnTermination: true, encrypted: true, iops: 3000, throughput: 125, volumeSize: '100Gi', volumeType: 'gp3' },
      },
    ],
    kubelet: { maxPods: 110, systemReserved: { cpu: '100m', 'ephemeral-storage': '1Gi', memory: '100Mi' } },
    metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    role: `KarpenterNodeRole-${CLUSTER}`,
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': CLUSTER } }],
    tags: { 'cost-center': 'platform', 'karpenter.sh/discovery': CLUSTER },
  };
  if (c.name === 'gpu') spec.userData = '#!/bin/bash\necho "configuring nvidia persistence mode"\nnvidia-smi -pm 1\n';
  const amis = [{ id: c.ami, name: c.amiName, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }];
  if (c.amiArm)
    amis.push({ id: c.amiArm, name: c.amiName.replace('x86_64', 'arm64'), requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] });
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: {
      annotations: { 'karpenter.k8s.aws/ec2nodeclass-hash': NODECLASS_HASH.get(c.name), 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4' },
      creationTimestamp: ts(created),
      finalizers: ['karpenter.k8s.aws/termination'],
      generation: r.int(1, 6),
      name: c.name,
      resourceVersion: rv(),
      uid: r.uuid(),
    },
    spec,
    status: {
      amis,
      conditions: ['AMIsReady', 'CapacityReservationsReady', 'InstanceProfileReady', 'Ready', 'SecurityGroupsReady', 'SubnetsReady', 'ValidationSucceeded'].map(
        (type) => ({ lastTransitionTime: condTime, message: '', observedGeneration: 1, reason: type, status: 'True', type }),
      ),
      instanceProfile: `${CLUSTER}_${fnv1a(c.name)}`,
      securityGroups: [{ id: SECURITY_GROUP, name: `eks-cluster-sg-${CLUSTER}-1234567890` }],
      subnets: ZONES.map((z) => ({ id: z.subnet, zone: z.zone, zoneID: z.id })),
    },
  };
}

function buildNodeClaim(plan, n) {
  const r = new Rng(plan.seed, `nodeclaim:${n.nodeclaimName}`);
  const labels = nodeLabels(n);
  const keep = Object.fromEntries(
    Object.entries(labels).filter(
      ([k]) =>
        k.startsWith('karpenter.') ||
        k.startsWith('kubernetes.io/arch') ||
        k.startsWith('kubernetes.io/os') ||
        k === 'node.kubernetes.io/instance-type' ||
        k.startsWith('topology.'),
    ),
  );
  Object.assign(keep, { 'karpenter.sh/team': 'platform', 'nodepool.example.com/name': n.pool.name });
  const { capacity, allocatable } = nodeResources(n);
  const launched = n.created - r.int(20_000, 60_000);
  const t = (ms) => ts(ms);
  const c = (type, status, reason, message, when) => ({ lastTransitionTime: t(when), message, observedGeneration: 1, reason, status, type });
  const initialized =
    n.state === 'uninitialized'
      ? c(
          'Initialized',
          'Unknown',
          'StartupTaintsExist',
          'StartupTaint "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule" still exists',
          n.created + 5_000,
        )
      : c('Initialized', 'True', 'Initialized', '', n.created + 40_000);
  const conditions = [
    c('ConsistentStateFound', 'True', 'ConsistentStateFound', '', n.created + 600_000),
    ...(n.state === 'ready' || n.state === 'underused' ? [c('Consolidatable', 'True', 'Consolidatable', '', NOW - r.int(MIN, DAY))] : []),
    ...(n.state === 'disrupting' ? [c('DisruptionReason', 'True', r.pick(['Underutilized', 'Drifted', 'Empty']), '', NOW - r.int(MIN, 20 * MIN))] : []),
    ...(r.chance(0.03) ? [c('Drifted', 'True', 'NodePoolDrifted', '', NOW - r.int(HOUR, 3 * DAY))] : []),
    initialized,
    c('Launched', 'True', 'Launched', '', launched + 3_000),
    n.state === 'uninitialized'
      ? c('Ready', 'False', 'UnhealthyDependents', 'Initialized=Unknown', n.created + 5_000)
      : c('Ready', 'True', 'Ready', '', n.created + 40_000),
    c('Registered', 'True', 'Registered', '', n.created + 2_000),
  ];
  const annotations = {
    'compatibility.karpenter.k8s.aws/cluster-name-tagged': 'true',
    'karpenter.k8s.aws/ec2nodeclass-hash': NODECLASS_HASH.get(n.pool.nodeClass),
    'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4',
    'karpenter.k8s.aws/tagged': 'true',
    'karpenter.sh/nodepool-hash': NODEPOOL_HASH.get(n.pool.name),
    'karpenter.sh/nodepool-hash-version': 'v3',
  };
  if (n.state === 'disrupting') annotations['karpenter.sh/nodeclaim-termination-timestamp'] = ts(NOW + r.int(HOUR, 40 * HOUR));
  const spec = {
    expireAfter: n.pool.name === 'stateful' ? 'Never' : '720h',
    nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: n.pool.nodeClass },
    requirements: [
      ...requirementsFor(n.pool).filter((q) => q.key !== 'node.kubernetes.io/instance-type'),
      { key: 'karpenter.sh/nodepool', operator: 'In', values: [n.pool.name] },
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: n.pool.types.slice().sort(), ...(n.pool.types.length > 2 ? { minValues: 2 } : {}) },
    ],
    resources: { requests: { cpu: `${r.int(2, 14) * 250}m`, memory: `${r.int(2, 40) * 512}Mi`, pods: String(r.int(6, 40)) } },
    terminationGracePeriod: '48h',
  };
  if (n.pool.taints) spec.taints = n.pool.taints;
  const metadata = {
    annotations,
    creationTimestamp: ts(launched),
    finalizers: ['karpenter.sh/termination'],
    generateName: `${n.pool.name}-`,
    generation: 1,
    labels: keep,
    name: n.nodeclaimName,
    ownerReferences: [{ apiVersion: 'karpenter.sh/v1', blockOwnerDeletion: true, kind: 'NodePool', name: n.pool.name, uid: poolUid(plan, n.pool) }],
    resourceVersion: rv(),
    uid: n.nodeclaimUid,
  };
  if (n.state === 'disrupting') metadata.deletionTimestamp = ts(NOW - r.int(MIN, 30 * MIN));
  const nc = NODECLASSES.find((x) => x.name === n.pool.nodeClass);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata,
    spec,
    status: {
      allocatable,
      capacity,
      conditions,
      imageID: n.spec[3] === 'arm64' && nc.amiArm ? nc.amiArm : nc.ami,
      lastPodEventTime: ts(n.state === 'underused' ? NOW - r.int(2 * DAY, 6 * DAY) : NOW - r.int(MIN, 6 * HOUR)),
      nodeName: n.name,
      providerID: n.providerID,
    },
  };
}

// --- workloads -------------------------------------------------------------------------------------------
const ENV_POOL = [
  ['LOG_LEVEL', 'info'],
  ['LOG_FORMAT', 'json'],
  ['ENVIRONMENT', 'production'],
  ['AWS_REGION', REGION],
  ['AWS_DEFAULT_REGION', REGION],
  ['AWS_STS_REGIONAL_ENDPOINTS', 'regional'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://otel-collector.monitoring.svc.cluster.local:4317'],
  ['OTEL_SERVICE_NAME', null],
  ['OTEL_RESOURCE_ATTRIBUTES', null],
  ['HTTP_PORT', null],
  ['GRPC_PORT', '9000'],
  ['METRICS_PORT', '9102'],
  ['DB_HOST', null],
  ['DB_PORT', '5432'],
  ['DB_NAME', null],
  ['DB_POOL_SIZE', '20'],
  ['REDIS_URL', null],
  [
    'KAFKA_BROKERS',
    'b-1.msk-prod.abc123.c4.kafka.us-east-1.amazonaws.com:9098,b-2.msk-prod.abc123.c4.kafka.us-east-1.amazonaws.com:9098,b-3.msk-prod.abc123.c4.kafka.us-east-1.amazonaws.com:9098',
  ],
  ['FEATURE_FLAGS_URL', 'https://flags.internal.example.com/api/v2'],
  ['JAVA_TOOL_OPTIONS', '-XX:MaxRAMPercentage=75.0 -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Dfile.encoding=UTF-8'],
  ['GOMAXPROCS', '2'],
  ['GOMEMLIMIT', null],
  ['SENTRY_DSN', 'https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4505678901234567'],
  ['TZ', 'UTC'],
  ['CACHE_TTL_SECONDS', '300'],
  ['REQUEST_TIMEOUT_MS', '5000'],
  ['MAX_CONCURRENCY', '64'],
  ['SHUTDOWN_GRACE_SECONDS', '25'],
];

function appContainer(w, i) {
  const r = new Rng(w.seed, `container:${i}`);
  const name = i === 0 ? (w.part ?? w.name) : (w.sidecarNames?.[i - 1] ?? `sidecar-${i}`);
  const env = [];
  const fieldEnv = (n, fp) => ({ name: n, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: fp } } });
  env.push(
    fieldEnv('POD_NAME', 'metadata.name'),
    fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
    fieldEnv('NODE_NAME', 'spec.nodeName'),
    fieldEnv('POD_IP', 'status.podIP'),
  );
  const count = i === 0 ? (w.envCount ?? 12) : 4;
  for (let k = 0; env.length < count && k < ENV_POOL.length; k++) {
    const [n, v] = ENV_POOL[(k + (w.seed % 7)) % ENV_POOL.length];
    let value = v;
    if (value === null) {
      if (n === 'OTEL_SERVICE_NAME') value = w.name;
      else if (n === 'OTEL_RESOURCE_ATTRIBUTES') value = `service.namespace=${w.ns},deployment.environment=production,k8s.cluster.name=${CLUSTER}`;
      else if (n === 'HTTP_PORT') value = String(w.port ?? 8080);
      else if (n === 'DB_HOST') value = `${w.ns}-db.cluster-c1a2b3c4d5e6.${REGION}.rds.amazonaws.com`;
      else if (n === 'DB_NAME') value = w.ns.replaceAll('-', '_');
      else if (n === 'REDIS_URL') value = `rediss://${w.ns}-cache.abc123.ng.0001.use1.cache.amazonaws.com:6379`;
      else if (n === 'GOMEMLIMIT') value = `${Math.floor((w.memMi ?? 512) * 0.9)}MiB`;
    }
    env.push({ name: n, value });
  }
  if (i === 0)
    env.push(
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `${w.ns}-db-credentials`, key: 'password' } } },
      { name: 'API_KEY', valueFrom: { secretKeyRef: { name: `${w.name}-secrets`, key: 'api-key', optional: true } } },
    );
  const cpu = i === 0 ? (w.cpuM ?? 100) : 50;
  const mem = i === 0 ? (w.memMi ?? 256) : 128;
  const port = i === 0 ? (w.port ?? 8080) : 15090 + i;
  const probe = (p, delay) => ({
    httpGet: { path: p, port: 'http', scheme: 'HTTP' },
    initialDelaySeconds: delay,
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  /** @type {any} */ const c = {
    name,
    image: i === 0 ? w.img.ref : r.pick(SIDECAR_IMAGES),
    ...(i === 0 && r.chance(0.4) ? { args: ['--config=/etc/app/config.yaml', `--port=${port}`, '--metrics-port=9102'] } : {}),
    ports: [
      { name: i === 0 ? 'http' : `admin-${i}`, containerPort: port, protocol: 'TCP' },
      ...(i === 0 ? [{ name: 'metrics', containerPort: 9102, protocol: 'TCP' }] : []),
    ],
    env,
    resources: { limits: { memory: quantityMi(mem) }, requests: { cpu: `${cpu}m`, memory: quantityMi(mem) } },
    volumeMounts: [
      ...(i === 0
        ? [
            { name: 'config', readOnly: true, mountPath: '/etc/app' },
            { name: 'tmp', mountPath: '/tmp' },
          ]
        : [{ name: 'tmp', mountPath: '/tmp' }]),
      ...(w.kind === 'StatefulSet' && i === 0 ? [{ name: 'data', mountPath: '/var/lib/data' }] : []),
    ],
    livenessProbe: probe('/healthz', 10),
    readinessProbe: probe('/readyz', 5),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: { capabilities: { drop: ['ALL'] }, runAsUser: 10001, runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
  };
  if (i === 0 && r.chance(0.15)) c.startupProbe = { ...probe('/healthz', 0), failureThreshold: 30 };
  if (i === 0 && r.chance(0.3)) c.lifecycle = { preStop: { exec: { command: ['/bin/sh', '-c', 'sleep 15'] } } };
  // Sidecars have no port named "http"; their probes use the numeric port.
  if (i > 0) {
    c.livenessProbe.httpGet.port = port;
    c.readinessProbe.httpGet.port = port;
  }
  return c;
}

function systemContainer(w) {
  const probe = {
    httpGet: { path: '/healthz', port: 8081, scheme: 'HTTP' },
    initialDelaySeconds: 30,
    timeoutSeconds: 30,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  };
  /** @type {any} */ const env = [
    { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
    { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
    { name: 'AWS_REGION', value: REGION },
  ];
  if (w.name === 'karpenter') {
    env.push(
      { name: 'KUBERNETES_MIN_VERSION', value: '1.19.0-0' },
      { name: 'KARPENTER_SERVICE', value: 'karpenter' },
      { name: 'WEBHOOK_PORT', value: '8443' },
      { name: 'WEBHOOK_METRICS_PORT', value: '8001' },
      { name: 'DISABLE_WEBHOOK', value: 'false' },
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'LOG_OUTPUT_PATHS', value: 'stdout' },
      { name: 'LOG_ERROR_OUTPUT_PATHS', value: 'stderr' },
      { name: 'METRICS_PORT', value: '8080' },
      { name: 'HEALTH_PROBE_PORT', value: '8081' },
      { name: 'MEMORY_LIMIT', valueFrom: { resourceFieldRef: { containerName: 'controller', divisor: '0', resource: 'limits.memory' } } },
      { name: 'FEATURE_GATES', value: 'ReservedCapacity=false,SpotToSpotConsolidation=false,NodeRepair=false' },
      { name: 'BATCH_MAX_DURATION', value: '10s' },
      { name: 'BATCH_IDLE_DURATION', value: '1s' },
      { name: 'CLUSTER_NAME', value: CLUSTER },
      { name: 'CLUSTER_ENDPOINT', value: 'https://0123456789ABCDEF0123456789ABCDEF.gr7.us-east-1.eks.amazonaws.com' },
      { name: 'VM_MEMORY_OVERHEAD_PERCENT', value: '0.075' },
      { name: 'INTERRUPTION_QUEUE', value: `Karpenter-${CLUSTER}` },
      { name: 'RESERVED_ENIS', value: '0' },
    );
  }
  return {
    name: w.name === 'karpenter' ? 'controller' : w.name.split('-').slice(-1)[0],
    image: w.name === 'karpenter' ? `${w.img.ref}@${w.img.digest}` : w.img.ref,
    ports: [
      { name: 'http-metrics', containerPort: 8080, protocol: 'TCP' },
      { name: 'http', containerPort: 8081, protocol: 'TCP' },
      ...(w.name === 'karpenter'
        ? [
            { name: 'webhook-metrics', containerPort: 8001, protocol: 'TCP' },
            { name: 'https-webhook', containerPort: 8443, protocol: 'TCP' },
          ]
        : []),
    ],
    env,
    resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
    volumeMounts: [],
    livenessProbe: probe,
    readinessProbe: { ...probe, httpGet: { path: '/readyz', port: 8081, scheme: 'HTTP' }, initialDelaySeconds: 5 },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: {
      capabilities: { drop: ['ALL'] },
      runAsUser: 65532,
      runAsGroup: 65532,
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    },
  };
}

function daemonContainer(d) {
  return {
    name: d.name === 'aws-node' ? 'aws-node' : d.name === 'kube-proxy' ? 'kube-proxy' : d.name.split('-').slice(-1)[0],
    image: d.image,
    ...(d.name === 'kube-proxy' ? { command: ['kube-proxy', '--v=2', '--config=/var/lib/kube-proxy-config/config', '--hostname-override=$(NODE_NAME)'] } : {}),
    ports: [
      {
        name: 'metrics',
        containerPort: d.name === 'aws-node' ? 61678 : 9100,
        ...(d.hostNetwork ? { hostPort: d.name === 'aws-node' ? 61678 : 9100 } : {}),
        protocol: 'TCP',
      },
    ],
    env: [
      { name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'AWS_REGION', value: REGION },
      ...(d.name === 'aws-node'
        ? [
            ['ADDITIONAL_ENI_TAGS', '{}'],
            ['ANNOTATE_POD_IP', 'false'],
            ['AWS_VPC_CNI_NODE_PORT_SUPPORT', 'true'],
            ['AWS_VPC_ENI_MTU', '9001'],
            ['AWS_VPC_K8S_CNI_EXTERNALSNAT', 'false'],
            ['AWS_VPC_K8S_CNI_LOGLEVEL', 'DEBUG'],
            ['AWS_VPC_K8S_CNI_LOG_FILE', '/host/var/log/aws-routed-eni/ipamd.log'],
            ['AWS_VPC_K8S_CNI_RANDOMIZESNAT', 'prng'],
            ['AWS_VPC_K8S_CNI_VETHPREFIX', 'eni'],
            ['AWS_VPC_K8S_PLUGIN_LOG_FILE', '/var/log/aws-routed-eni/plugin.log'],
            ['AWS_VPC_K8S_PLUGIN_LOG_LEVEL', 'DEBUG'],
            ['DISABLE_INTROSPECTION', 'false'],
            ['DISABLE_METRICS', 'false'],
            ['DISABLE_NETWORK_RESOURCE_PROVISIONING', 'false'],
            ['ENABLE_IPv4', 'true'],
            ['ENABLE_IPv6', 'false'],
            ['ENABLE_POD_ENI', 'false'],
            ['ENABLE_PREFIX_DELEGATION', 'false'],
            ['WARM_ENI_TARGET', '1'],
            ['WARM_PREFIX_TARGET', '1'],
            ['CLUSTER_NAME', CLUSTER],
            ['VPC_ID', VPC],
          ].map(([name, value]) => ({ name, value }))
        : [{ name: 'LOG_LEVEL', value: 'info' }]),
    ],
    resources: { limits: { memory: '256Mi' }, requests: { cpu: d.name === 'aws-node' ? '25m' : '10m', memory: '64Mi' } },
    volumeMounts: [
      { name: 'varlog', mountPath: '/var/log' },
      { name: 'host-root', readOnly: true, mountPath: '/host', mountPropagation: 'HostToContainer' },
    ],
    livenessProbe: {
      exec: { command: ['/app/grpc-health-probe', '-addr=:50051', '-connect-timeout=5s', '-rpc-timeout=5s'] },
      initialDelaySeconds: 60,
      timeoutSeconds: 10,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
    securityContext: d.hostNetwork ? { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } } : { privileged: true },
  };
}

/** The pod template shared by a workload's pods and by its Deployment/ReplicaSet/DaemonSet objects. */
function workloadTemplate(w) {
  if (w._template) return w._template;
  const r = new Rng(w.seed ?? fnv1a(w.name), 'template');
  const isDs = !!w.component;
  const labels = isDs
    ? { 'app.kubernetes.io/name': w.name, 'app.kubernetes.io/component': w.component, 'k8s-app': w.name }
    : {
        app: w.name,
        'app.kubernetes.io/instance': w.name,
        'app.kubernetes.io/name': w.name,
        'app.kubernetes.io/part-of': w.ns,
        ...(w.version ? { 'app.kubernetes.io/version': w.version } : {}),
        ...(w.team ? { team: w.team } : {}),
      };
  const annotations = {};
  if (!isDs && !w.system) {
    Object.assign(annotations, { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102', 'prometheus.io/path': '/metrics' });
    if (r.chance(0.5)) annotations['kubectl.kubernetes.io/restartedAt'] = ts(NOW - r.int(DAY, 60 * DAY));
    annotations['checksum/config'] = r.hex(64);
  }
  if (w.doNotDisrupt) annotations['karpenter.sh/do-not-disrupt'] = 'true';
  if (w.name === 'karpenter') annotations['checksum/settings'] = r.hex(64);

  /** @type {any} */ let containers;
  const initContainers = [];
  if (isDs) containers = [daemonContainer(w)];
  else if (w.system) containers = [systemContainer(w)];
  else {
    w.sidecarNames = ['envoy', 'log-shipper'];
    containers = Array.from({ length: 1 + (w.sidecars ?? 0) }, (_, i) => appContainer(w, i));
    if (w.init)
      initContainers.push({
        name: 'migrate',
        image: w.img.ref,
        command: ['/app/bin/migrate', '--wait-for-db', '--timeout=120s'],
        env: containers[0].env.slice(0, 8),
        resources: { limits: { memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } },
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
        securityContext: { runAsUser: 10001, runAsNonRoot: true, allowPrivilegeEscalation: false },
      });
  }
  if (w.irsa) {
    for (const c of containers) {
      c.env.push(
        { name: 'AWS_ROLE_ARN', value: `arn:aws:iam::${ACCOUNT}:role/${CLUSTER}-${w.name}` },
        { name: 'AWS_WEB_IDENTITY_TOKEN_FILE', value: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token' },
      );
      c.volumeMounts.push({ name: 'aws-iam-token', readOnly: true, mountPath: '/var/run/secrets/eks.amazonaws.com/serviceaccount' });
    }
  }

  const volumes = [];
  if (w.irsa)
    volumes.push({
      name: 'aws-iam-token',
      projected: { sources: [{ serviceAccountToken: { audience: 'sts.amazonaws.com', expirationSeconds: 86400, path: 'token' } }], defaultMode: 420 },
    });
  if (isDs) volumes.push({ name: 'varlog', hostPath: { path: '/var/log', type: '' } }, { name: 'host-root', hostPath: { path: '/', type: 'Directory' } });
  else if (!w.system) {
    volumes.push({ name: 'config', configMap: { name: `${w.name}-config`, defaultMode: 420 } }, { name: 'tmp', emptyDir: { sizeLimit: '1Gi' } });
    if (w.kind === 'StatefulSet') volumes.push({ name: 'data', persistentVolumeClaim: { claimName: `data-${w.name}` } });
  }

  const tolerations = [];
  if (isDs) tolerations.push({ operator: 'Exists' });
  else {
    for (const t of w.pool?.taints ?? []) tolerations.push({ key: t.key, operator: 'Equal', value: t.value, effect: t.effect });
    if (w.system && w.onMng) tolerations.push({ key: 'CriticalAddonsOnly', operator: 'Exists' });
  }
  let nodeSelector;
  let affinity;
  if (isDs) nodeSelector = w.nodeSelector ?? { 'kubernetes.io/os': 'linux' };
  else if (w.name === 'karpenter') {
    nodeSelector = { 'kubernetes.io/os': 'linux' };
    affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' }] }],
        },
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { 'app.kubernetes.io/instance': 'karpenter', 'app.kubernetes.io/name': 'karpenter' } },
            topologyKey: 'kubernetes.io/hostname',
          },
        ],
      },
    };
  } else if (w.selector === 'nodeSelector' && w.pool) nodeSelector = { 'karpenter.sh/nodepool': w.pool.name };
  else if (w.selector === 'affinity' && w.pool) {
    affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: 'karpenter.sh/nodepool', operator: 'In', values: [w.pool.name] },
                { key: 'karpenter.sh/capacity-type', operator: 'In', values: w.pool.capacity.slice() },
              ],
            },
          ],
        },
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { 'app.kubernetes.io/name': w.name } }, topologyKey: 'kubernetes.io/hostname' } },
        ],
      },
    };
  }

  /** @type {any} */ const spec = {
    volumes,
    ...(initContainers.length ? { initContainers } : {}),
    containers,
    restartPolicy: w.kind === 'Job' ? 'Never' : 'Always',
    terminationGracePeriodSeconds: w.name === 'karpenter' ? 30 : isDs ? 10 : r.pick([30, 30, 60, 120]),
    dnsPolicy: isDs && w.hostNetwork ? 'ClusterFirstWithHostNet' : 'ClusterFirst',
  };
  if (nodeSelector) spec.nodeSelector = nodeSelector;
  spec.serviceAccountName = isDs ? w.name : w.system ? w.name : w.irsa ? w.name : 'default';
  spec.serviceAccount = spec.serviceAccountName;
  if (isDs && w.hostNetwork) spec.hostNetwork = true;
  spec.securityContext = isDs ? {} : { runAsUser: 10001, runAsGroup: 10001, runAsNonRoot: true, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } };
  if (affinity) spec.affinity = affinity;
  spec.schedulerName = 'default-scheduler';
  if (tolerations.length) spec.tolerations = tolerations;
  const priorityClassName =
    isDs || w.name === 'karpenter' || w.name === 'coredns' ? (isDs ? 'system-node-critical' : 'system-cluster-critical') : w.priorityClass;
  if (priorityClassName) spec.priorityClassName = priorityClassName;
  w._priority =
    priorityClassName === 'system-node-critical' ? 2000001000 : priorityClassName === 'system-cluster-critical' ? 2000000000 : priorityClassName ? 1000000 : 0;
  spec.enableServiceLinks = !isDs;
  if (w.spread)
    spec.topologySpreadConstraints = [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { 'app.kubernetes.io/name': w.name } },
      },
    ];
  w._template = { labels, annotations, spec };
  return w._template;
}

/** corev1.PodSpec field order, which typed JSON output follows. */
const POD_SPEC_ORDER = [
  'volumes',
  'initContainers',
  'containers',
  'ephemeralContainers',
  'restartPolicy',
  'terminationGracePeriodSeconds',
  'activeDeadlineSeconds',
  'dnsPolicy',
  'nodeSelector',
  'serviceAccountName',
  'serviceAccount',
  'automountServiceAccountToken',
  'nodeName',
  'hostNetwork',
  'hostPID',
  'hostIPC',
  'shareProcessNamespace',
  'securityContext',
  'imagePullSecrets',
  'hostname',
  'subdomain',
  'affinity',
  'schedulerName',
  'tolerations',
  'hostAliases',
  'priorityClassName',
  'priority',
  'dnsConfig',
  'readinessGates',
  'runtimeClassName',
  'enableServiceLinks',
  'preemptionPolicy',
  'overhead',
  'topologySpreadConstraints',
  'setHostnameAsFQDN',
  'os',
  'hostUsers',
  'schedulingGates',
  'resourceClaims',
];
function inGoOrder(fields, order) {
  const o = {};
  for (const k of order) if (fields[k] !== undefined) o[k] = fields[k];
  return o;
}

function ownerRef(apiVersion, kind, name, uid) {
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

function buildPod(plan, ns, s, r) {
  const w = s.w;
  const tpl = workloadTemplate(w);
  const isDs = s.kind === 'DaemonSet';
  const labels = { ...tpl.labels };
  let owner;
  if (s.kind === 'Deployment') {
    labels['pod-template-hash'] = w.hash;
    owner = ownerRef('apps/v1', 'ReplicaSet', `${w.name}-${w.hash}`, w.rsUid);
  } else if (s.kind === 'StatefulSet') {
    Object.assign(labels, {
      'apps.kubernetes.io/pod-index': String(s.index),
      'controller-revision-hash': `${w.name}-${w.hash}`,
      'statefulset.kubernetes.io/pod-name': s.name,
    });
    owner = ownerRef('apps/v1', 'StatefulSet', w.name, w.uid);
  } else if (isDs) {
    Object.assign(labels, { 'controller-revision-hash': w.hash, 'pod-template-generation': '4' });
    owner = ownerRef('apps/v1', 'DaemonSet', w.name, w.uid);
  } else {
    Object.assign(labels, { 'batch.kubernetes.io/controller-uid': w.uid, 'batch.kubernetes.io/job-name': w.name, 'controller-uid': w.uid, 'job-name': w.name });
    owner = ownerRef('batch/v1', 'Job', w.name, w.uid);
  }
  /** @type {any} */ const metadata = {
    name: s.name,
    ...(s.kind === 'StatefulSet' ? {} : { generateName: s.name.slice(0, s.name.length - 5) }),
    namespace: ns.name,
    uid: s.uid,
    resourceVersion: rv(),
    creationTimestamp: ts(s.created),
    labels,
    annotations: { ...tpl.annotations },
    ownerReferences: [owner],
  };
  if (s.kind === 'Job') metadata.finalizers = ['batch.kubernetes.io/job-tracking'];

  const apiSuffix = r.suffix(5);
  const volumes = [
    ...tpl.spec.volumes,
    {
      name: `kube-api-access-${apiSuffix}`,
      projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
        defaultMode: 420,
      },
    },
  ];
  const saMount = { name: `kube-api-access-${apiSuffix}`, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
  const withSa = (c) => ({ ...c, volumeMounts: [...c.volumeMounts, saMount] });
  const fields = { ...tpl.spec, volumes };
  fields.containers = tpl.spec.containers.map(withSa);
  if (tpl.spec.initContainers) fields.initContainers = tpl.spec.initContainers.map(withSa);
  if (s.node) fields.nodeName = s.node.name;
  if (isDs) {
    // The DaemonSet controller pins each pod to its node and adds the node-condition tolerations.
    fields.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [s.node.name] }] }],
        },
      },
    };
    fields.tolerations = [
      { operator: 'Exists' },
      ...['not-ready', 'unreachable', 'disk-pressure', 'memory-pressure', 'pid-pressure', 'unschedulable'].map((t) => ({
        key: `node.kubernetes.io/${t}`,
        operator: 'Exists',
        effect: t === 'not-ready' || t === 'unreachable' ? 'NoExecute' : 'NoSchedule',
      })),
      ...(tpl.spec.hostNetwork ? [{ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : []),
    ];
  } else {
    // DefaultTolerationSeconds admission adds these to every pod that does not tolerate them already.
    fields.tolerations = [
      ...(tpl.spec.tolerations ?? []),
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ];
  }
  fields.priority = w._priority;
  fields.preemptionPolicy = 'PreemptLowerPriority';
  const spec = inGoOrder(fields, POD_SPEC_ORDER);

  return { metadata, spec, status: podStatus(plan, s, spec, r) };
}

function podStatus(plan, s, spec, r) {
  const qos = spec.containers.every(
    (c) => c.resources.limits?.cpu && c.resources.limits.cpu === c.resources.requests?.cpu && c.resources.limits.memory === c.resources.requests?.memory,
  )
    ? 'Guaranteed'
    : spec.containers.some((c) => c.resources.requests)
      ? 'Burstable'
      : 'BestEffort';
  if (s.phase === 'Pending') {
    const total = plan.nodes.length;
    return {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: ts(s.created + 1000),
          reason: 'Unschedulable',
          message: `0/${total} nodes are available: ${r.int(3, 40)} node(s) had untolerated taint {karpenter.sh/disrupted: }, ${r.int(1, 12)} Insufficient memory, ${r.int(100, 4000)} node(s) didn't match Pod's node affinity/selector, ${r.int(2, 30)} Insufficient cpu. preemption: 0/${total} nodes are available: ${r.int(100, 4000)} Preemption is not helpful for scheduling, ${r.int(2, 40)} No preemption victims found for incoming pod.`,
        },
      ],
      qosClass: qos,
    };
  }
  const start = s.created + r.int(1000, 4000);
  const ready = s.phase === 'Running' && !s.crash && s.node.state !== 'notready';
  const node = s.node;
  const cstatus = (c, i) => {
    const img = c.image.split('@')[0];
    const base = { name: c.name };
    if (s.phase === 'Succeeded') {
      base.state = {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          startedAt: ts(start + 2000),
          finishedAt: ts(start + r.int(30_000, 900_000)),
          containerID: `containerd://${r.hex(64)}`,
        },
      };
      base.lastState = {};
      base.ready = false;
      base.restartCount = 0;
    } else if (s.crash && i === 0) {
      base.state = {
        waiting: { reason: 'CrashLoopBackOff', message: `back-off 5m0s restarting failed container=${c.name} pod=${s.name}_${s.w.ns}(${s.uid})` },
      };
      base.lastState = {
        terminated: {
          exitCode: r.pick([1, 137, 2]),
          reason: r.pick(['Error', 'OOMKilled']),
          startedAt: ts(NOW - r.int(6 * MIN, 8 * MIN)),
          finishedAt: ts(NOW - r.int(3 * MIN, 5 * MIN)),
          containerID: `containerd://${r.hex(64)}`,
        },
      };
      base.ready = false;
      base.restartCount = r.int(5, 400);
    } else {
      base.state = { running: { startedAt: ts(start + 2000 + i * 300) } };
      base.lastState = {};
      base.ready = ready;
      base.restartCount = r.chance(0.05) ? r.int(1, 4) : 0;
    }
    base.image = img;
    base.imageID = imageID(plan, img);
    base.containerID = `containerd://${r.hex(64)}`;
    base.started = s.phase === 'Running' && !(s.crash && i === 0);
    base.volumeMounts = c.volumeMounts.map((m) => ({
      name: m.name,
      mountPath: m.mountPath,
      ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}),
    }));
    return base;
  };
  const cond = (type, status, t, reason, message) => ({
    type,
    status,
    lastProbeTime: null,
    lastTransitionTime: ts(t),
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  });
  const doneOrReady = ready ? 'True' : 'False';
  const notReadyAt = NOW - r.int(MIN, 30 * MIN);
  const notReadyReason = ready ? undefined : s.phase === 'Succeeded' ? 'PodCompleted' : 'ContainersNotReady';
  const notReadyMessage = ready || s.phase === 'Succeeded' ? undefined : `containers with unready status: [${spec.containers[0].name}]`;
  const status = {
    phase: s.phase,
    conditions: [
      cond('PodReadyToStartContainers', s.phase === 'Succeeded' ? 'False' : 'True', start + 1500),
      cond('Initialized', 'True', start + (spec.initContainers ? 8000 : 0)),
      cond('Ready', doneOrReady, ready ? start + 12000 : notReadyAt, notReadyReason, notReadyMessage),
      cond('ContainersReady', doneOrReady, ready ? start + 12000 : notReadyAt, notReadyReason, notReadyMessage),
      cond('PodScheduled', 'True', s.created + 1000),
    ],
    hostIP: node.ip,
    hostIPs: [{ ip: node.ip }],
    podIP: s.ip,
    podIPs: [{ ip: s.ip }],
    startTime: ts(start),
  };
  if (spec.initContainers) {
    status.initContainerStatuses = spec.initContainers.map((c) => ({
      name: c.name,
      state: {
        terminated: { exitCode: 0, reason: 'Completed', startedAt: ts(start + 1000), finishedAt: ts(start + 7000), containerID: `containerd://${r.hex(64)}` },
      },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: c.image,
      imageID: imageID(plan, c.image),
      containerID: `containerd://${r.hex(64)}`,
      started: false,
      volumeMounts: c.volumeMounts?.map((m) => ({ name: m.name, mountPath: m.mountPath, readOnly: true, recursiveReadOnly: 'Disabled' })) ?? [],
    }));
  }
  status.containerStatuses = spec.containers.map(cstatus);
  status.qosClass = qos;
  return status;
}

/** Status imageIDs use the same digests as the node image lists. */
function imageID(plan, ref) {
  const img = plan.images.get(ref);
  const repo = ref.replace(/:[^/:]+$/, '');
  return `${repo}@${img ? img.digest : `sha256:${new Rng(fnv1a(ref), 'digest').hex(64)}`}`;
}

function buildDeployment(plan, w, r) {
  const tpl = workloadTemplate(w);
  const revision = 1 + w.oldHashes.length;
  return {
    metadata: {
      name: w.name,
      namespace: w.ns,
      uid: w.uid,
      resourceVersion: rv(),
      generation: revision + r.int(0, 5),
      creationTimestamp: ts(w.created),
      labels: { ...tpl.labels, 'app.kubernetes.io/managed-by': w.system ? 'Helm' : 'argocd' },
      annotations: {
        'deployment.kubernetes.io/revision': String(revision),
        ...(w.system
          ? { 'meta.helm.sh/release-name': w.name, 'meta.helm.sh/release-namespace': w.ns }
          : { 'argocd.argoproj.io/tracking-id': `${w.ns}:apps/Deployment:${w.ns}/${w.name}` }),
      },
    },
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/instance': w.name, 'app.kubernetes.io/name': w.name } },
      template: { metadata: { creationTimestamp: null, labels: tpl.labels, annotations: tpl.annotations }, spec: tpl.spec },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {
      observedGeneration: revision,
      replicas: w.replicas,
      updatedReplicas: w.replicas,
      readyReplicas: w.replicas,
      availableReplicas: w.replicas,
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: ts(NOW - r.int(HOUR, 10 * DAY)),
          lastTransitionTime: ts(NOW - r.int(HOUR, 10 * DAY)),
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: ts(NOW - r.int(HOUR, 10 * DAY)),
          lastTransitionTime: ts(w.created),
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${w.name}-${w.hash}" has successfully progressed.`,
        },
      ],
    },
  };
}

function buildReplicaSets(plan, w, _r) {
  const tpl = workloadTemplate(w);
  const all = [
    ...w.oldHashes.map((o, i) => ({ ...o, revision: i + 1, replicas: 0 })),
    { hash: w.hash, uid: w.rsUid, revision: w.oldHashes.length + 1, replicas: w.replicas },
  ];
  return all.map((o) => ({
    metadata: {
      name: `${w.name}-${o.hash}`,
      namespace: w.ns,
      uid: o.uid,
      resourceVersion: rv(),
      generation: o.replicas ? 3 : 4,
      creationTimestamp: ts(w.created + o.revision * DAY),
      labels: { ...tpl.labels, 'pod-template-hash': o.hash },
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(w.replicas),
        'deployment.kubernetes.io/max-replicas': String(w.replicas + Math.ceil(w.replicas / 4)),
        'deployment.kubernetes.io/revision': String(o.revision),
      },
      ownerReferences: [ownerRef('apps/v1', 'Deployment', w.name, w.uid)],
    },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/instance': w.name, 'app.kubernetes.io/name': w.name, 'pod-template-hash': o.hash } },
      template: { metadata: { creationTimestamp: null, labels: { ...tpl.labels, 'pod-template-hash': o.hash }, annotations: tpl.annotations }, spec: tpl.spec },
    },
    status: o.replicas
      ? { replicas: o.replicas, fullyLabeledReplicas: o.replicas, readyReplicas: o.replicas, availableReplicas: o.replicas, observedGeneration: 3 }
      : { replicas: 0, observedGeneration: 4 },
  }));
}

function buildDaemonSet(plan, d, r) {
  const tpl = workloadTemplate(d);
  const n = d.nodes.length;
  return {
    metadata: {
      name: d.name,
      namespace: d.ns,
      uid: d.uid,
      resourceVersion: rv(),
      generation: 4,
      creationTimestamp: ts(NOW - r.int(100 * DAY, 300 * DAY)),
      labels: tpl.labels,
      annotations: { 'deprecated.daemonset.template.generation': '4' },
    },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/name': d.name } },
      template: { metadata: { creationTimestamp: null, labels: tpl.labels }, spec: tpl.spec },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
      revisionHistoryLimit: 10,
    },
    status: {
      currentNumberScheduled: n,
      numberMisscheduled: 0,
      desiredNumberScheduled: n,
      numberReady: n - d.nodes.filter((x) => x.state === 'notready').length,
      observedGeneration: 4,
      updatedNumberScheduled: n,
      numberAvailable: n - d.nodes.filter((x) => x.state === 'notready').length,
    },
  };
}

function buildService(plan, w, r) {
  const ip = `172.20.${r.int(0, 255)}.${r.int(1, 254)}`;
  return {
    metadata: {
      name: w.name,
      namespace: w.ns,
      uid: r.uuid(),
      resourceVersion: rv(),
      creationTimestamp: ts(w.created),
      labels: { 'app.kubernetes.io/name': w.name },
      annotations: w.system
        ? { 'meta.helm.sh/release-name': w.name, 'meta.helm.sh/release-namespace': w.ns }
        : { 'argocd.argoproj.io/tracking-id': `${w.ns}:/Service:${w.ns}/${w.name}` },
    },
    spec: {
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http' },
        { name: 'metrics', protocol: 'TCP', port: 9102, targetPort: 9102 },
      ],
      selector: { 'app.kubernetes.io/instance': w.name, 'app.kubernetes.io/name': w.name },
      clusterIP: ip,
      clusterIPs: [ip],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  };
}

// --- events ----------------------------------------------------------------------------------------------
/** A core/v1 Event as recorded by client-go's legacy recorder (kubelet, controllers, Karpenter). */
function eventObj(r, ns, inv, reason, message, type, source, first, last, count) {
  return {
    metadata: { name: `${inv.name}.${r.hex(16)}`, namespace: ns, uid: r.uuid(), resourceVersion: rv(), creationTimestamp: ts(first) },
    involvedObject: inv,
    reason,
    message,
    source,
    firstTimestamp: ts(first),
    lastTimestamp: ts(last),
    count,
    type,
    eventTime: null,
    reportingComponent: source.component ?? '',
    reportingInstance: source.host ?? '',
  };
}

/**
 * The same Event as the core/v1 API shows one recorded through events.k8s.io/v1 (the scheduler does this):
 * no source, null first/last timestamps, no count, a MicroTime eventTime, `action`, and `series` when repeated.
 */
function schedulerEvent(r, ns, inv, reason, message, type, when, action, repeats) {
  const ev = {
    metadata: { name: `${inv.name}.${r.hex(16)}`, namespace: ns, uid: r.uuid(), resourceVersion: rv(), creationTimestamp: ts(when) },
    involvedObject: inv,
    reason,
    message,
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    type,
    eventTime: microTs(when, r),
  };
  if (repeats > 1) ev.series = { count: repeats, lastObservedTime: microTs(NOW - r.int(5_000, 10 * MIN), r) };
  ev.action = action;
  ev.reportingComponent = 'default-scheduler';
  ev.reportingInstance = `default-scheduler-ip-172-16-${r.int(0, 255)}-${r.int(1, 254)}.ec2.internal`;
  return ev;
}

/** Events in `default` about Nodes, NodeClaims and NodePools (where Karpenter and the node controller record them). */
function* clusterEvents(plan, total) {
  const r = new Rng(plan.seed, 'events:cluster');
  const count = Math.max(0, total - 2); // the last two are NodePool events
  const karp = { component: 'karpenter' };
  const kn = plan.karpenterNodes.length ? plan.karpenterNodes : plan.nodes;
  for (let i = 0; i < count; i++) {
    const n = kn[i % kn.length];
    const nodeRef = { kind: 'Node', name: n.name, uid: n.uid, apiVersion: 'v1' };
    const ncRef = n.mng ? nodeRef : { kind: 'NodeClaim', name: n.nodeclaimName, uid: n.nodeclaimUid, apiVersion: 'karpenter.sh/v1' };
    const lastRecent = NOW - r.int(5_000, 50 * MIN);
    const roll = r.next();
    const pick =
      n.state === 'underused'
        ? 'blocked'
        : n.state === 'notready'
          ? 'notready'
          : n.state === 'disrupting'
            ? 'terminating'
            : roll < 0.25
              ? 'blocked'
              : roll < 0.45
                ? 'unconsolidatable'
                : roll < 0.6
                  ? 'kubelet'
                  : roll < 0.7
                    ? 'registered'
                    : roll < 0.8
                      ? 'ncready'
                      : roll < 0.9
                        ? 'pods'
                        : 'drifted';
    switch (pick) {
      case 'blocked': {
        const why = r.weighted([
          ['Node is nominated for a pending pod', 3],
          [`Pdb "${r.pick(plan.namespaces).name}/${r.pick(APP_PARTS)}-pdb" prevents pod evictions`, 3],
          [`Pod "${r.pick(plan.namespaces).name}/${r.pick(APP_PARTS)}-${r.suffix(10)}-${r.suffix(5)}" has "karpenter.sh/do-not-disrupt" annotation`, 2],
          ['Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation', 1],
          ["Node isn't initialized", 0.5],
        ]);
        const first = NOW - r.int(HOUR, 5 * DAY);
        const c = r.int(20, 3000);
        yield eventObj(r, 'default', nodeRef, 'DisruptionBlocked', why, 'Normal', karp, first, lastRecent, c);
        if (!n.mng && i + 1 < count && r.chance(0.5))
          (yield eventObj(r, 'default', ncRef, 'DisruptionBlocked', why, 'Normal', karp, first, lastRecent, c), i++);
        break;
      }
      case 'unconsolidatable':
        yield eventObj(
          r,
          'default',
          r.chance(0.5) ? nodeRef : ncRef,
          'Unconsolidatable',
          r.pick([
            "Can't replace with a cheaper node",
            "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
            `not all pods would schedule, ${r.pick(plan.namespaces).name}/${r.pick(APP_PARTS)}-${r.suffix(10)}-${r.suffix(5)} => would schedule against uninitialized nodeclaim/${r.pick(kn).nodeclaimName}, node/${r.pick(kn).name}`,
          ]),
          'Normal',
          karp,
          NOW - r.int(HOUR, 3 * DAY),
          lastRecent,
          r.int(1, 400),
        );
        break;
      case 'notready':
        yield eventObj(
          r,
          'default',
          nodeRef,
          'NodeNotReady',
          `Node ${n.name} status is now: NodeNotReady`,
          'Normal',
          { component: 'node-controller' },
          NOW - r.int(20 * MIN, 5 * HOUR),
          lastRecent,
          1,
        );
        if (!n.mng && i + 1 < count)
          (yield eventObj(
            r,
            'default',
            ncRef,
            'Ready',
            'Status condition transitioned, Type: Ready, Status: True -> Unknown, Reason: NodeStatusUnknown, Message: Kubelet stopped posting node status.',
            'Normal',
            karp,
            NOW - r.int(20 * MIN, 5 * HOUR),
            lastRecent,
            1,
          ),
            i++);
        break;
      case 'terminating':
        yield eventObj(
          r,
          'default',
          nodeRef,
          'DisruptionTerminating',
          `Disrupting Node: ${r.pick(['Underutilized/Delete', 'Drifted/Replace', 'Empty/Delete', 'Underutilized/Replace'])}`,
          'Normal',
          karp,
          NOW - r.int(5 * MIN, 40 * MIN),
          lastRecent,
          1,
        );
        if (i + 1 < count) {
          yield eventObj(
            r,
            'default',
            nodeRef,
            'FailedDraining',
            `Failed to drain node, ${r.int(1, 9)} pods are waiting to be evicted`,
            'Warning',
            karp,
            NOW - r.int(5 * MIN, 40 * MIN),
            lastRecent,
            r.int(2, 90),
          );
          i++;
        }
        break;
      case 'kubelet':
        {
          const [reason, message] = r.pick([
            ['NodeReady', `Node ${n.name} status is now: NodeReady`],
            ['Starting', 'Starting kubelet.'],
            ['NodeHasSufficientMemory', `Node ${n.name} status is now: NodeHasSufficientMemory`],
            ['NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods'],
          ]);
          yield eventObj(r, 'default', nodeRef, reason, message, 'Normal', { component: 'kubelet', host: n.name }, n.created + 20_000, n.created + 30_000, 1);
        }
        break;
      case 'registered':
        yield eventObj(
          r,
          'default',
          nodeRef,
          'RegisteredNode',
          `Node ${n.name} event: Registered Node ${n.name} in Controller`,
          'Normal',
          { component: 'node-controller' },
          NOW - r.int(MIN, 55 * MIN),
          NOW - r.int(5_000, MIN),
          1,
        );
        break;
      case 'ncready':
        yield eventObj(
          r,
          'default',
          ncRef,
          r.pick(['Launched', 'Registered', 'Initialized', 'Ready']),
          'Status condition transitioned, Type: Initialized, Status: Unknown -> True, Reason: Initialized',
          'Normal',
          karp,
          NOW - r.int(MIN, 55 * MIN),
          NOW - r.int(5_000, MIN),
          1,
        );
        break;
      case 'pods':
        yield eventObj(
          r,
          'default',
          nodeRef,
          'AwaitingVolumeDetachment',
          `Awaiting deletion of bound volumeattachments (csi-${r.hex(64)})`,
          'Normal',
          karp,
          NOW - r.int(MIN, 55 * MIN),
          lastRecent,
          r.int(1, 20),
        );
        break;
      default:
        yield eventObj(
          r,
          'default',
          ncRef,
          'Drifted',
          'Status condition transitioned, Type: Drifted, Status: Unknown -> True, Reason: NodePoolDrifted',
          'Normal',
          karp,
          NOW - r.int(HOUR, 2 * DAY),
          NOW - r.int(HOUR, 2 * DAY),
          1,
        );
    }
  }
  // NodePool-level events: a budget that blocks and one pool whose requirements filter out everything.
  if (total < 2) return;
  const np = (name) => ({
    kind: 'NodePool',
    name,
    uid: poolUid(
      plan,
      NODEPOOLS.find((p) => p.name === name),
    ),
    apiVersion: 'karpenter.sh/v1',
  });
  yield eventObj(
    r,
    'default',
    np('stateful'),
    'DisruptionBlocked',
    'No allowed disruptions for disruption reason Underutilized due to blocking budget',
    'Normal',
    karp,
    NOW - r.int(5 * DAY, 20 * DAY),
    NOW - r.int(5_000, MIN),
    r.int(5000, 20000),
  );
  yield eventObj(
    r,
    'default',
    np('gpu'),
    'NoCompatibleInstanceTypes',
    'NodePool requirements filtered out all compatible available instance types',
    'Warning',
    karp,
    NOW - r.int(HOUR, DAY),
    NOW - r.int(5_000, 10 * MIN),
    r.int(10, 500),
  );
}

function* namespaceEvents(plan, ns, stubs, count) {
  const r = new Rng(plan.seed, `events:${ns.name}`);
  if (!stubs.length) return;
  const pending = stubs.filter((s) => s.phase === 'Pending');
  const crashing = stubs.filter((s) => s.crash);
  for (let i = 0; i < count; i++) {
    // Bias towards the interesting pods: pending ones get scheduler and Karpenter events, crashing ones BackOff.
    const roll = r.next();
    let s = roll < 0.2 && pending.length ? r.pick(pending) : roll < 0.3 && crashing.length ? r.pick(crashing) : r.pick(stubs);
    const ref = { kind: 'Pod', namespace: ns.name, name: s.name, uid: s.uid, apiVersion: 'v1', resourceVersion: String(rvCounter - r.int(0, 1_000_000)) };
    const last = NOW - r.int(2_000, 58 * MIN);
    if (s.phase === 'Pending') {
      if (r.chance(0.5)) {
        const nc = r.pick(plan.karpenterNodes.length ? plan.karpenterNodes : plan.nodes);
        yield eventObj(
          r,
          ns.name,
          ref,
          'Nominated',
          `Pod should schedule on: nodeclaim/${nc.nodeclaimName ?? nc.name}, node/${nc.name}`,
          'Normal',
          { component: 'karpenter' },
          s.created + 2000,
          last,
          r.int(1, 40),
        );
      } else if (r.chance(0.5)) {
        yield eventObj(
          r,
          ns.name,
          ref,
          'FailedScheduling',
          `Failed to schedule pod, incompatible with nodepool "${s.w.pool?.name ?? 'default'}", daemonset overhead={"cpu":"335m","memory":"459Mi","pods":"6"}, no instance type satisfied resources {"cpu":"${s.w.cpuM ?? 100}m","memory":"${s.w.memMi ?? 256}Mi","pods":"1"} and requirements karpenter.k8s.aws/instance-family In [${(s.w.pool ?? NODEPOOLS[0]).types.map((t) => t.split('.')[0]).join(' ')}], karpenter.sh/capacity-type In [on-demand spot], karpenter.sh/nodepool In [${s.w.pool?.name ?? 'default'}] (no instance type has enough resources)`,
          'Warning',
          { component: 'karpenter' },
          s.created + 3000,
          last,
          r.int(1, 300),
        );
      } else {
        const total = plan.nodes.length;
        yield schedulerEvent(
          r,
          ns.name,
          ref,
          'FailedScheduling',
          `0/${total} nodes are available: ${r.int(3, 40)} node(s) had untolerated taint {karpenter.sh/disrupted: }, ${r.int(1, 30)} Insufficient memory, ${r.int(100, 4000)} node(s) didn't match Pod's node affinity/selector. preemption: 0/${total} nodes are available: ${r.int(100, 4000)} Preemption is not helpful for scheduling, ${r.int(2, 40)} No preemption victims found for incoming pod.`,
          'Warning',
          s.created + 1000,
          'Scheduling',
          r.int(1, 200),
        );
      }
      continue;
    }
    const c = workloadTemplate(s.w).spec.containers[0].name;
    const fieldPath = `spec.containers{${c}}`;
    const kubelet = { component: 'kubelet', host: s.node.name };
    if (s.crash) {
      yield eventObj(
        r,
        ns.name,
        { ...ref, fieldPath },
        r.chance(0.7) ? 'BackOff' : 'Unhealthy',
        r.chance(0.7)
          ? `Back-off restarting failed container ${c} in pod ${s.name}_${ns.name}(${s.uid})`
          : 'Liveness probe failed: HTTP probe failed with statuscode: 500',
        'Warning',
        kubelet,
        NOW - r.int(HOUR, 5 * HOUR),
        last,
        r.int(10, 2000),
      );
      continue;
    }
    const kind = r.weighted([
      ['Scheduled', 2],
      ['Pulling', 1.5],
      ['Pulled', 2],
      ['Created', 1.5],
      ['Started', 1.5],
      ['Unhealthy', 0.6],
      ['Killing', 0.3],
      ['rs', 0.4],
      ['Evicted', 0.2],
    ]);
    const img = s.w.img?.ref ?? s.w.image;
    switch (kind) {
      case 'Scheduled':
        yield schedulerEvent(r, ns.name, ref, 'Scheduled', `Successfully assigned ${ns.name}/${s.name} to ${s.node.name}`, 'Normal', last, 'Binding', 1);
        break;
      case 'Pulling':
        yield eventObj(r, ns.name, { ...ref, fieldPath }, 'Pulling', `Pulling image "${img}"`, 'Normal', kubelet, last, last, 1);
        break;
      case 'Pulled':
        yield eventObj(
          r,
          ns.name,
          { ...ref, fieldPath },
          'Pulled',
          r.chance(0.5)
            ? `Container image "${img}" already present on machine`
            : `Successfully pulled image "${img}" in 2.481s (2.481s including waiting). Image size: ${s.w.img?.size ?? 52428800} bytes.`,
          'Normal',
          kubelet,
          last,
          last,
          1,
        );
        break;
      case 'Created':
        yield eventObj(r, ns.name, { ...ref, fieldPath }, 'Created', `Created container: ${c}`, 'Normal', kubelet, last, last, 1);
        break;
      case 'Started':
        yield eventObj(r, ns.name, { ...ref, fieldPath }, 'Started', `Started container ${c}`, 'Normal', kubelet, last, last, 1);
        break;
      case 'Unhealthy':
        yield eventObj(
          r,
          ns.name,
          { ...ref, fieldPath },
          'Unhealthy',
          `Readiness probe failed: Get "http://${s.ip}:${s.w.port ?? 8080}/readyz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
          'Warning',
          kubelet,
          NOW - r.int(HOUR, 3 * HOUR),
          last,
          r.int(1, 50),
        );
        break;
      case 'Killing':
        yield eventObj(r, ns.name, { ...ref, fieldPath }, 'Killing', `Stopping container ${c}`, 'Normal', kubelet, last, last, 1);
        break;
      case 'Evicted':
        yield eventObj(
          r,
          ns.name,
          ref,
          'Evicted',
          `Evicted pod: ${r.pick(['Underutilized', 'Drifted', 'Empty'])}`,
          'Normal',
          { component: 'karpenter' },
          last,
          last,
          1,
        );
        break;
      default: {
        if (s.kind !== 'Deployment') {
          yield schedulerEvent(r, ns.name, ref, 'Scheduled', `Successfully assigned ${ns.name}/${s.name} to ${s.node.name}`, 'Normal', last, 'Binding', 1);
          break;
        }
        const rsRef = {
          kind: 'ReplicaSet',
          namespace: ns.name,
          name: `${s.w.name}-${s.w.hash}`,
          uid: s.w.rsUid,
          apiVersion: 'apps/v1',
          resourceVersion: String(rvCounter - r.int(0, 1_000_000)),
        };
        yield eventObj(r, ns.name, rsRef, 'SuccessfulCreate', `Created pod: ${s.name}`, 'Normal', { component: 'replicaset-controller' }, last, last, 1);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Karpenter controller logs (v1.x JSON, controller-runtime style).
// ---------------------------------------------------------------------------------------------------------
function karpenterLogs(plan, leader, lines) {
  const r = new Rng(plan.seed, `logs:${leader ? 'leader' : 'standby'}`);
  // Records keep a numeric time while generating; at the end the whole log is shifted to end just before NOW.
  const out = [];
  let t = 0;
  const line = (level, message, fields = {}, logger = 'controller') => out.push({ level, time: t, logger, message, commit: KARPENTER_COMMIT, ...fields });
  const finish = () => {
    const shift = NOW - r.int(1_000, 30_000) - t;
    return out.map((o) => JSON.stringify({ ...o, time: new Date(o.time + shift).toISOString() }));
  };
  const rec = (controller, kind, obj, extra) => ({
    controller,
    controllerGroup: kind === 'Node' ? '' : 'karpenter.sh',
    controllerKind: kind,
    [kind]: { name: obj },
    namespace: '',
    name: obj,
    reconcileID: r.uuid(),
    ...extra,
  });
  line('INFO', 'starting server', { name: 'health probe', addr: '[::]:8081' }, 'controller-runtime.metrics');
  line('INFO', 'Starting metrics server', {}, 'controller-runtime.metrics');
  line('INFO', 'Serving metrics server', { bindAddress: ':8080', secure: false }, 'controller-runtime.metrics');
  line('INFO', 'discovered karpenter version', { version: KARPENTER_VERSION });
  line('INFO', `attempting to acquire leader lease kube-system/karpenter-leader-election...`, {}, 'controller');
  if (!leader) {
    for (let i = 0; i < Math.min(lines, 40); i++) {
      t += r.int(60_000, 600_000);
      line('ERROR', 'http: TLS handshake error from 10.20.12.34:' + r.int(30000, 60000) + ': EOF\n', {}, 'webhook');
    }
    return finish();
  }
  t += 3_000;
  line('INFO', 'successfully acquired lease kube-system/karpenter-leader-election', {}, 'controller');
  for (const ctl of ['nodeclaim.lifecycle', 'nodepool.readiness', 'provisioner', 'disruption', 'interruption', 'nodeclass', 'node.termination'])
    line('INFO', 'Starting Controller', { controller: ctl });
  line('INFO', 'discovered ssm parameter', {
    controller: 'nodeclass',
    controllerGroup: 'karpenter.k8s.aws',
    controllerKind: 'EC2NodeClass',
    EC2NodeClass: { name: 'default' },
    namespace: '',
    name: 'default',
    reconcileID: r.uuid(),
    parameter: '/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/x86_64/standard/recommended/image_id',
    value: NODECLASSES[0].ami,
  });
  const kn = plan.karpenterNodes.length ? plan.karpenterNodes : plan.nodes;
  const podNames = () => Array.from({ length: 5 }, () => `${r.pick(plan.namespaces).name}/${r.pick(APP_PARTS)}-${r.suffix(10)}-${r.suffix(5)}`).join(', ');
  while (out.length < lines) {
    t += r.int(500, 20_000);
    const n = r.pick(kn);
    const pool = n.pool?.name ?? 'default';
    switch (
      r.weighted([
        ['prov', 4],
        ['disrupt', 2],
        ['sched', 2],
        ['ice', 0.5],
        ['interrupt', 0.3],
        ['tls', 0.5],
        ['hint', 0.4],
        ['gc', 0.2],
      ])
    ) {
      case 'prov': {
        const nc = `${pool}-${r.suffix(5)}`;
        const count = r.int(1, 40);
        line('INFO', 'found provisionable pod(s)', {
          controller: 'provisioner',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          Pods: `${podNames()} and ${count} other(s)`,
          duration: `${r.int(20, 900)}.${r.int(100, 999)}ms`,
        });
        line('INFO', 'computed new nodeclaim(s) to fit pod(s)', {
          controller: 'provisioner',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          nodeclaims: 1,
          pods: count + 5,
        });
        line('INFO', 'created nodeclaim', {
          controller: 'provisioner',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          NodePool: { name: pool },
          NodeClaim: { name: nc },
          requests: { cpu: `${r.int(2, 14) * 250}m`, memory: `${r.int(2, 40) * 512}Mi`, pods: String(count + 5) },
          'instance-types': `${(n.pool ?? NODEPOOLS[0]).types.join(', ')}`,
        });
        t += r.int(1500, 4000);
        const inst = `i-0${r.hex(16)}`;
        line(
          'INFO',
          'launched nodeclaim',
          rec('nodeclaim.lifecycle', 'NodeClaim', nc, {
            'provider-id': `aws:///${n.zone.zone}/${inst}`,
            'instance-type': n.type,
            zone: n.zone.zone,
            'capacity-type': n.capacityType,
            allocatable: nodeResources(n).allocatable,
          }),
        );
        t += r.int(20_000, 40_000);
        const nodeName = hostnameOf(ipOf(n.zone, r));
        line(
          'INFO',
          'registered nodeclaim',
          rec('nodeclaim.lifecycle', 'NodeClaim', nc, { 'provider-id': `aws:///${n.zone.zone}/${inst}`, Node: { name: nodeName } }),
        );
        t += r.int(8_000, 20_000);
        line(
          'INFO',
          'initialized nodeclaim',
          rec('nodeclaim.lifecycle', 'NodeClaim', nc, {
            'provider-id': `aws:///${n.zone.zone}/${inst}`,
            Node: { name: nodeName },
            allocatable: nodeResources(n).allocatable,
          }),
        );
        break;
      }
      case 'disrupt': {
        const reason = r.pick(['underutilized', 'empty', 'drifted']);
        const decision = reason === 'drifted' ? 'replace' : r.pick(['delete', 'replace']);
        line('INFO', 'disrupting node(s)', {
          controller: 'disruption',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          'command-id': r.uuid(),
          reason,
          decision,
          'disrupted-node-count': 1,
          'replacement-node-count': decision === 'replace' ? 1 : 0,
          'pod-count': r.int(0, 30),
          'disrupted-nodes': [
            { Node: { name: n.name }, NodeClaim: { name: n.nodeclaimName }, capacity: { 'instance-type': n.type, 'capacity-type': n.capacityType } },
          ],
          'replacement-nodes': decision === 'replace' ? [{ 'capacity-type': 'on-demand', 'instance-types': (n.pool ?? NODEPOOLS[0]).types.join(', ') }] : [],
        });
        t += r.int(500, 3000);
        line(
          'INFO',
          'tainted node',
          rec('node.termination', 'Node', n.name, {
            controllerGroup: '',
            NodeClaim: { name: n.nodeclaimName },
            'taint.Key': 'karpenter.sh/disrupted',
            'taint.Value': '',
            'taint.Effect': 'NoSchedule',
          }),
        );
        if (r.chance(0.7)) {
          t += r.int(20_000, 120_000);
          line('INFO', 'deleted node', rec('node.termination', 'Node', n.name, { controllerGroup: '', NodeClaim: { name: n.nodeclaimName } }));
          line('INFO', 'deleted nodeclaim', rec('nodeclaim.lifecycle', 'NodeClaim', n.nodeclaimName, { Node: { name: n.name }, 'provider-id': n.providerID }));
        }
        break;
      }
      case 'sched': {
        const ns = r.pick(plan.namespaces).name;
        line('ERROR', 'could not schedule pod', {
          controller: 'provisioner',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          Pod: { name: `${r.pick(APP_PARTS)}-${r.suffix(10)}-${r.suffix(5)}`, namespace: ns },
          error: `incompatible with nodepool "${pool}", daemonset overhead={"cpu":"335m","memory":"459Mi","pods":"6"}, no instance type satisfied resources {"cpu":"4","memory":"70Gi","pods":"1"} and requirements karpenter.sh/capacity-type In [on-demand spot], karpenter.sh/nodepool In [${pool}], kubernetes.io/arch In [amd64] (no instance type has enough resources); incompatible with nodepool "gpu", daemonset overhead={"cpu":"335m","memory":"459Mi","pods":"6"}, did not tolerate nvidia.com/gpu=true:NoSchedule`,
        });
        break;
      }
      case 'ice':
        line(
          'ERROR',
          'failed launching nodeclaim',
          rec('nodeclaim.lifecycle', 'NodeClaim', `${pool}-${r.suffix(5)}`, {
            error: `creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient ${n.type} capacity in the Availability Zone you requested (${n.zone.zone}). Our system will be working on provisioning additional capacity.`,
          }),
        );
        break;
      case 'interrupt':
        line('INFO', 'initiating delete from interruption message', {
          controller: 'interruption',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          queue: `Karpenter-${CLUSTER}`,
          messageKind: 'spot_interrupted',
          NodeClaim: { name: n.nodeclaimName },
          action: 'CordonAndDrain',
          Node: { name: n.name },
        });
        break;
      case 'tls':
        line(
          'ERROR',
          `http: TLS handshake error from 10.20.${r.int(0, 255)}.${r.int(1, 254)}:${r.int(30000, 60000)}: read tcp 10.20.1.15:8443->10.20.7.9:${r.int(30000, 60000)}: read: connection reset by peer\n`,
          {},
          'webhook',
        );
        break;
      case 'hint':
        line('INFO', 'pod(s) have a preferred Anti-Affinity which can prevent consolidation', {
          controller: 'provisioner',
          namespace: '',
          name: '',
          reconcileID: r.uuid(),
          pods: podNames(),
        });
        break;
      default:
        line(
          'ERROR',
          'Reconciler error',
          rec('nodeclaim.lifecycle', 'NodeClaim', n.nodeclaimName ?? n.name, { error: 'missing required startup taint, karpenter.sh/unregistered' }),
        );
    }
  }
  return finish();
}

// ---------------------------------------------------------------------------------------------------------
// Output: buffered synchronous writes (simple, bounded), and list writers for each printer style.
// ---------------------------------------------------------------------------------------------------------
class OutFile {
  constructor(file) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.file = file;
    this.fd = fs.openSync(file, 'w');
    this.parts = [];
    this.pending = 0;
    this.bytes = 0;
  }
  write(s) {
    this.parts.push(s);
    this.pending += s.length;
    if (this.pending >= 1 << 22) this.flush();
  }
  flush() {
    if (!this.parts.length) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    let off = 0;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
    this.parts = [];
    this.pending = 0;
  }
  close() {
    this.flush();
    fs.closeSync(this.fd);
    return this.bytes;
  }
}

/** Go's encoding/json escapes these for HTML safety, and kubectl's printer inherits that. */
function goEscape(s) {
  return /[<>&\u2028\u2029]/.test(s) ? s.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
}

/** Unstructured objects (kubectl get -o json of a List) print with map keys sorted. */
function sortKeysDeep(v) {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) o[k] = sortKeysDeep(v[k]);
    return o;
  }
  return v;
}

/** @type {any} */ const YAML_OPTS = { sortKeys: true, noArrayIndent: true, lineWidth: -1, noRefs: true, quotingType: '"' };

/**
 * One list document, streamed item by item. `typed` lists (cluster-info dump) keep Go struct order and items
 * without kind/apiVersion; untyped `List`s (kubectl get) carry kind/apiVersion per item and sort keys.
 */
class ListWriter {
  /**
   * @param {any} out
   * @param {string} format
   * @param {{ kind?: string, apiVersion?: string, resourceVersion?: string, typed: boolean, emptyAs?: string, docStart?: boolean }} list
   */
  constructor(out, format, { kind, apiVersion, resourceVersion, typed, emptyAs = '[]', docStart = false }) {
    this.out = out;
    this.format = format;
    this.kind = kind;
    this.apiVersion = apiVersion;
    this.resourceVersion = resourceVersion;
    this.typed = typed;
    this.emptyAs = emptyAs;
    this.count = 0;
    if (format === 'json') {
      out.write(
        typed
          ? `{\n    "kind": "${kind}",\n    "apiVersion": "${apiVersion}",\n    "metadata": {\n        "resourceVersion": "${resourceVersion}"\n    },\n    "items": `
          : `{\n    "apiVersion": "v1",\n    "items": `,
      );
    } else {
      out.write(`${docStart ? '---\n' : ''}apiVersion: ${typed ? apiVersion : 'v1'}\nitems:`);
    }
  }
  add(obj) {
    const item = this.typed ? obj : sortKeysDeep(obj);
    if (this.format === 'json') {
      const text = goEscape(JSON.stringify(item, null, 4)).replaceAll('\n', '\n        ');
      this.out.write(this.count === 0 ? `[\n        ${text}` : `,\n        ${text}`);
    } else {
      const text = yamlDump(item, YAML_OPTS);
      this.out.write(`\n- ${text.slice(0, -1).replaceAll('\n', '\n  ')}`);
    }
    this.count++;
  }
  end() {
    if (this.format === 'json') {
      const items = this.count ? '\n    ]' : this.emptyAs;
      this.out.write(this.typed ? `${items}\n}\n` : `${items},\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n`);
    } else {
      const items = this.count ? '\n' : ` ${this.emptyAs}\n`;
      this.out.write(
        this.typed
          ? `${items}kind: ${this.kind}\nmetadata:\n  resourceVersion: "${this.resourceVersion}"\n`
          : `${items}kind: List\nmetadata:\n  resourceVersion: ""\n`,
      );
    }
    return this.count;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------------------
const LIST_KINDS = {
  events: ['EventList', 'v1', 'Event'],
  'replication-controllers': ['ReplicationControllerList', 'v1', 'ReplicationController'],
  services: ['ServiceList', 'v1', 'Service'],
  daemonsets: ['DaemonSetList', 'apps/v1', 'DaemonSet'],
  deployments: ['DeploymentList', 'apps/v1', 'Deployment'],
  replicasets: ['ReplicaSetList', 'apps/v1', 'ReplicaSet'],
  pods: ['PodList', 'v1', 'Pod'],
};

/** Objects of one file kind in one namespace, in generation order. All builders are pure given the plan. */
function* namespaceObjects(plan, ns, file, stubs, eventCount) {
  const r = new Rng(plan.seed, `${file}:${ns.name}`);
  switch (file) {
    case 'events':
      yield* namespaceEvents(plan, ns, stubs, eventCount);
      break;
    case 'replication-controllers':
      break;
    case 'services':
      for (const w of ns.workloads) if (w.kind !== 'Job' && (w.system || new Rng(w.seed, 'svc').chance(0.7))) yield buildService(plan, w, r);
      break;
    case 'daemonsets':
      for (const d of ns.daemonsets) yield buildDaemonSet(plan, d, r);
      break;
    case 'deployments':
      for (const w of ns.workloads) if (w.kind === 'Deployment') yield buildDeployment(plan, w, r);
      break;
    case 'replicasets':
      for (const w of ns.workloads) if (w.kind === 'Deployment') yield* buildReplicaSets(plan, w, r);
      break;
    case 'pods':
      for (const s of stubs) yield buildPod(plan, ns, s, r);
      break;
  }
}

function splitEvents(plan, total) {
  // A quarter of the events are about nodes/NodeClaims (namespace default); the rest follow the pods.
  const cluster = Math.min(total, Math.round(total * 0.25));
  const podTotal = plan.namespaces.reduce((s, n) => s + n.pods, 0) || 1;
  const per = new Map();
  let left = total - cluster;
  plan.namespaces.forEach((ns, i) => {
    const n = i === plan.namespaces.length - 1 ? left : Math.min(left, Math.round(((total - cluster) * ns.pods) / podTotal));
    per.set(ns.name, n);
    left -= n;
  });
  return { cluster, per };
}

export function generate(opts) {
  const t0 = performance.now();
  const format = opts.format;
  const ext = format === 'json' ? '.json' : '.yaml';
  const plan = planCluster(opts);
  const files = [];
  const counts = {};
  const bump = (kind, n) => (counts[kind] = (counts[kind] ?? 0) + n);
  const record = (rel, out, objects) => files.push({ path: rel, bytes: out.close(), objects });
  const { cluster: clusterEventCount, per: eventsPerNs } = splitEvents(plan, opts.events);
  const karpenterPods = plan.namespaces.find((n) => n.name === 'kube-system').workloads.find((w) => w.name === 'karpenter');
  const progress = (msg) => opts.quiet || process.stderr.write(`[gen ${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
  let docs = 0; // cluster-info dump -o yaml shares one printer: every document after the first starts with ---

  const writeLogs = (rel, blocks) => {
    const out = new OutFile(path.join(opts.out, rel));
    let lines = 0;
    for (const b of blocks) {
      out.write(`==== START logs for container controller of pod kube-system/${b.pod} ====\n`);
      for (const l of b.lines) out.write(l + '\n');
      out.write(`==== END logs for container controller of pod kube-system/${b.pod} ====\n`);
      lines += b.lines.length;
    }
    files.push({ path: rel, bytes: out.close(), objects: 0, logLines: lines });
    bump('logLines', lines);
  };
  const karpenterPodNames = () =>
    karpenterPods
      ? podStubs(
          plan,
          plan.namespaces.find((n) => n.name === 'kube-system'),
        )
          .filter((s) => s.w === karpenterPods)
          .map((s) => s.name)
      : [];

  if (!opts.singleFile) {
    // nodes
    {
      const out = new OutFile(path.join(opts.out, `nodes${ext}`));
      const lw = new ListWriter(out, format, { kind: 'NodeList', apiVersion: 'v1', resourceVersion: rv(), typed: true, docStart: docs++ > 0 });
      for (const n of plan.nodes) lw.add(buildNode(plan, n));
      record(`nodes${ext}`, out, lw.end());
      bump('Node', plan.nodes.length);
      progress(`nodes${ext}: ${plan.nodes.length} nodes`);
    }
    // namespaces, in cluster-info dump order
    for (const ns of plan.namespaces) {
      const stubs = podStubs(plan, ns);
      for (const file of Object.keys(LIST_KINDS)) {
        const [listKind, apiVersion, kind] = LIST_KINDS[file];
        const rel = `${ns.name}/${file}${ext}`;
        const out = new OutFile(path.join(opts.out, rel));
        // Empty lists: protobuf-decoded typed lists print `null`, JSON-decoded ones `[]`; both occur in the wild.
        const emptyAs = fnv1a(`${ns.name}/${file}`) % 3 === 0 ? 'null' : '[]';
        const lw = new ListWriter(out, format, { kind: listKind, apiVersion, resourceVersion: rv(), typed: true, emptyAs, docStart: docs++ > 0 });
        let n = 0;
        if (file === 'events' && ns.name === 'default') for (const e of clusterEvents(plan, clusterEventCount)) (lw.add(e), n++);
        for (const obj of namespaceObjects(plan, ns, file, stubs, eventsPerNs.get(ns.name))) (lw.add(obj), n++);
        record(rel, out, lw.end());
        bump(kind, n);
      }
      for (const w of ns.workloads) delete w._template; // templates are per namespace; free them
      for (const d of ns.daemonsets) delete d._template;
      progress(`${ns.name}: ${stubs.length} pods`);
    }
    // Karpenter objects, as `kubectl get nodepools,nodeclaims,ec2nodeclasses -o json|yaml` prints them.
    {
      const rel = `karpenter${ext}`;
      const out = new OutFile(path.join(opts.out, rel));
      const lw = new ListWriter(out, format, { typed: false });
      for (const o of karpenterObjects(plan, bump)) lw.add(o);
      record(rel, out, lw.end());
    }
    const names = karpenterPodNames();
    names.forEach((pod, i) => writeLogs(`kube-system/${pod}/logs.txt`, [{ pod, lines: karpenterLogs(plan, i === 0, opts.logLines) }]));
  } else {
    // One `kubectl get nodes,pods,events,deployments,replicasets,daemonsets,services,nodepools,nodeclaims,
    // ec2nodeclasses -A -o json` List: typed objects gain kind/apiVersion, all keys sorted.
    const rel = `cluster${ext}`;
    const out = new OutFile(path.join(opts.out, rel));
    const lw = new ListWriter(out, format, { typed: false });
    const withType = (obj, kind, apiVersion) => ({ apiVersion, kind, ...obj });
    for (const n of plan.nodes) lw.add(withType(buildNode(plan, n), 'Node', 'v1'));
    bump('Node', plan.nodes.length);
    progress(`nodes: ${plan.nodes.length}`);
    for (const file of ['pods', 'events', 'deployments', 'replicasets', 'daemonsets', 'services']) {
      const [, apiVersion, kind] = LIST_KINDS[file];
      let n = 0;
      for (const ns of plan.namespaces) {
        // Stubs are needed by pods and events only; recomputing them is cheap and keeps memory flat.
        const stubs = file === 'pods' || file === 'events' ? podStubs(plan, ns) : [];
        if (file === 'events' && ns.name === 'default') for (const e of clusterEvents(plan, clusterEventCount)) (lw.add(withType(e, kind, apiVersion)), n++);
        for (const obj of namespaceObjects(plan, ns, file, stubs, eventsPerNs.get(ns.name))) (lw.add(withType(obj, kind, apiVersion)), n++);
        for (const w of ns.workloads) delete w._template;
        for (const d of ns.daemonsets) delete d._template;
      }
      bump(kind, n);
      progress(`${file}: ${n}`);
    }
    for (const o of karpenterObjects(plan, bump)) lw.add(o);
    record(rel, out, lw.end());
    const names = karpenterPodNames();
    writeLogs(
      'karpenter-controller.log',
      names.map((pod, i) => ({ pod, lines: karpenterLogs(plan, i === 0, opts.logLines) })),
    );
  }

  const totalBytes = files.reduce((s, f) => s + f.bytes, 0);
  const objects = Object.entries(counts)
    .filter(([k]) => k !== 'logLines')
    .reduce((s, [, v]) => s + v, 0);
  return {
    generatorVersion: GENERATOR_VERSION,
    options: { ...opts, out: path.resolve(opts.out) },
    files,
    counts,
    objects,
    totalBytes,
    seconds: (performance.now() - t0) / 1000,
  };
}

function* karpenterObjects(plan, bump) {
  for (const p of NODEPOOLS) yield buildNodePool(plan, p, plan.karpenterNodes.filter((n) => n.pool === p).length);
  bump('NodePool', NODEPOOLS.length);
  for (const n of plan.karpenterNodes) yield buildNodeClaim(plan, n);
  bump('NodeClaim', plan.karpenterNodes.length);
  for (const c of NODECLASSES) yield buildNodeClass(plan, c);
  bump('EC2NodeClass', NODECLASSES.length);
}

// ---------------------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------------------
function fmtBytes(n) {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(1)} kB`;
}

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      nodes: { type: 'string', default: '5000' },
      pods: { type: 'string', default: '150000' },
      events: { type: 'string', default: '100000' },
      namespaces: { type: 'string', default: '60' },
      format: { type: 'string', default: 'json' },
      'single-file': { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      'log-lines': { type: 'string', default: '3000' },
      manifest: { type: 'string' },
      force: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || !values.out) {
    process.stdout.write(
      'usage: node scripts/gen-synthetic-dump.mjs --out DIR [--nodes 5000] [--pods 150000] [--events 100000] [--namespaces 60] [--format json|yaml] [--single-file] [--seed 1] [--log-lines 3000] [--manifest FILE] [--force] [--quiet]\n',
    );
    process.exit(values.help ? 0 : 2);
  }
  const int = (name, min) => {
    const v = Number(values[name]);
    if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer >= ${min}`);
    return v;
  };
  const opts = {
    out: values.out,
    nodes: int('nodes', 1),
    pods: int('pods', 0),
    events: int('events', 0),
    namespaces: int('namespaces', 1),
    format: values.format,
    singleFile: values['single-file'],
    seed: int('seed', 0),
    logLines: int('log-lines', 10),
    quiet: values.quiet,
  };
  if (!['json', 'yaml'].includes(opts.format)) throw new Error('--format must be json or yaml');
  if (fs.existsSync(opts.out) && fs.readdirSync(opts.out).length) {
    if (!values.force) throw new Error(`${opts.out} is not empty (use --force to replace it)`);
    fs.rmSync(opts.out, { recursive: true, force: true });
  }
  const result = generate(opts);
  if (values.manifest) {
    fs.mkdirSync(path.dirname(values.manifest), { recursive: true });
    fs.writeFileSync(values.manifest, JSON.stringify(result, null, 2) + '\n');
  }
  const big = result.files
    .slice()
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
  const lines = [
    `wrote ${result.files.length} files, ${fmtBytes(result.totalBytes)} (${result.totalBytes} bytes), ${result.objects} objects in ${result.seconds.toFixed(1)} s to ${path.resolve(opts.out)}`,
    `objects: ${Object.entries(result.counts)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
    `largest files: ${big.map((f) => `${f.path} ${fmtBytes(f.bytes)}`).join(', ')}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`gen-synthetic-dump: ${e.message}\n`);
    process.exit(1);
  });
}
