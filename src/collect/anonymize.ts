/**
 * `collect --anonymize`: object names and namespaces become keyed hashes (HMAC-SHA256 under a key the customer
 * keeps), the same string always giving the same hash, so every reference — nodeName, ownerReferences, claimRef,
 * nodeClassRef, name-valued labels, events' involvedObject, names inside messages and log lines — still points at
 * the same object and the rules find the same things. Whoever holds the key can hash a name to find it in the bundle.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { KubeObject } from '../kube/types.js';
import { isKarpenterControllerPod } from '../loaders/logs.js';
import { isRecord } from '../kube/fields.js';
import { EC2NODECLASS_LABEL, HOSTNAME_LABEL, NAMESPACE_NAME_LABEL, NODECLAIM_LABEL, NODEPOOL_LABEL, PROVISIONER_LABEL } from '../kube/well-known.js';

/** Names every cluster has, which identify nobody; hashing them would only make the bundle harder to read. */
export const KEPT_NAMES = ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'karpenter'];

/**
 * Words that mean something to Kubernetes and Karpenter (capacity types, architectures, states). An object may carry
 * one as its name (a NodePool called `spot`): it is hashed where it is a name, but a label value, selector or word
 * in a message that reads `spot` keeps it, or rules would no longer see spot capacity.
 */
const VOCABULARY = new Set([
  'spot',
  'on-demand',
  'reserved',
  'true',
  'false',
  'linux',
  'windows',
  'amd64',
  'arm64',
  'node',
  'nodes',
  'pod',
  'pods',
  'nodepool',
  'nodeclaim',
  'nodeclass',
  'controller',
  'webhook',
  'ready',
  'running',
  'pending',
  'none',
  'all',
  'app',
  'api',
]);

/** Maps of label-like values: a value that is an object's name (`app: checkout-api`) is hashed like the name. */
const LABEL_MAPS = new Set(['labels', 'annotations', 'matchLabels', 'nodeSelector', 'selector']);

/** Labels and annotations whose values are object names. */
const NAME_LABELS = new Set([
  'metadata.name',
  'volume.kubernetes.io/selected-node',
  NODEPOOL_LABEL,
  PROVISIONER_LABEL,
  NODECLAIM_LABEL,
  EC2NODECLASS_LABEL,
  HOSTNAME_LABEL,
  NAMESPACE_NAME_LABEL,
  'statefulset.kubernetes.io/pod-name',
]);

/** Fields whose string value names an object. */
const NAME_FIELDS = new Set([
  'nodeName',
  'nominatedNodeName',
  'volumeName',
  'storageClassName',
  'claimName',
  'persistentVolumeName',
  'serviceAccountName',
  'serviceAccount',
  'secretName',
  'host',
  'reportingInstance',
]);

/** Objects that reference another object by `name` (and `namespace`). */
const REFERENCES = new Set([
  'metadata',
  'ownerReferences',
  'involvedObject',
  'regarding',
  'related',
  'claimRef',
  'nodeClassRef',
  'providerRef',
  'dataSource',
  'dataSourceRef',
  'scaleTargetRef',
  'targetRef',
  'secretKeyRef',
  'configMapKeyRef',
  'secretRef',
]);

/** Free-text fields that mention objects by name (event messages, condition messages). */
const TEXT_FIELDS = new Set(['message', 'note']);

/** Node addresses that are names rather than IPs. */
const NAME_ADDRESSES = new Set(['Hostname', 'InternalDNS', 'ExternalDNS']);

export class Anonymizer {
  private readonly aliases = new Map<string, string>();
  private readonly kept = new Set(KEPT_NAMES);
  /** Every name met in an object, for finding them in free text. */
  private readonly known = new Set<string>();

  constructor(private readonly key: Buffer) {}

  /** A short fingerprint of the key, for the manifest: which key hashed this bundle, without revealing it. */
  get keyFingerprint(): string {
    return createHash('sha256').update(this.key).digest('hex').slice(0, 16);
  }

  /**
   * The hash of a name: a DNS-1123 label. A Karpenter controller pod keeps a `karpenter-` prefix, as loaders
   * recognise the controller's logs by pod name.
   */
  alias(name: string): string {
    if (name === '' || this.kept.has(name)) return name;
    let a = this.aliases.get(name);
    if (a === undefined) {
      const generated = this.generatedFrom(name);
      if (generated) a = `${this.alias(generated.base)}-${generated.suffix}`;
      else {
        const h = createHmac('sha256', this.key).update(name).digest('hex').slice(0, 16);
        a = isKarpenterControllerPod(name) ? `karpenter-${h}` : `x${h}`;
      }
      this.aliases.set(name, a);
    }
    return a;
  }

  /**
   * A name Kubernetes or Karpenter generated from a known one — a ReplicaSet `<deployment>-<hash>`, its pods
   * `<replicaset>-<random>`, a NodeClaim `<nodepool>-<random>`, a StatefulSet's `<name>-<ordinal>` — keeps its suffix
   * after the hashed base, so that what is read from the shape of a name (a pod's Deployment when its ReplicaSet was
   * not collected, a NodeClaim's pool in a log line after the NodeClaim is gone) still reads. The suffixes are random
   * or counters and identify nothing. A base the bundle keeps in clear (`default`) is hashed whole, as before.
   */
  private generatedFrom(name: string, depth = 0): { base: string; suffix: string } | undefined {
    // Two generations at most (pod → ReplicaSet → Deployment): a long hostile token costs two passes, not one per dash.
    if (depth > 1) return undefined;
    const m = GENERATED_SUFFIX.exec(name);
    if (!m) return undefined;
    const [, base, suffix] = m as unknown as [string, string, string];
    if (this.kept.has(base) || VOCABULARY.has(base)) return undefined;
    return this.known.has(base) || this.generatedFrom(base, depth + 1) ? { base, suffix } : undefined;
  }

  /** Learn the names of all objects first, so that free text met before an object's own turn is rewritten too. */
  learn(objects: Iterable<KubeObject>): void {
    for (const o of objects) {
      if (o.metadata.name) this.known.add(o.metadata.name);
      if (o.metadata.namespace) this.known.add(o.metadata.namespace);
    }
    for (const k of this.kept) this.known.delete(k);
  }

  /** Rewrites one object in place. */
  object(obj: KubeObject): void {
    this.walk(obj, undefined);
  }

  /** Replaces every known name standing as a whole token (`node/ip-10-0-1-5`, `"payments"`) in free text. */
  text(text: string): string {
    return text.replace(TOKEN, (token) => ((this.known.has(token) && !VOCABULARY.has(token)) || this.generatedFrom(token) ? this.alias(token) : token));
  }

  private walk(value: unknown, parentKey: string | undefined): void {
    if (Array.isArray(value)) {
      for (const v of value) this.walk(v, parentKey);
      return;
    }
    if (!isRecord(value)) return;
    if (parentKey !== undefined && REFERENCES.has(parentKey)) {
      for (const k of ['name', 'namespace', 'generateName']) if (typeof value[k] === 'string') value[k] = this.alias(value[k] as string);
      // The kubelet sets a Node event's involvedObject.uid to the node's name.
      if (typeof value.uid === 'string' && this.known.has(value.uid)) value.uid = this.alias(value.uid);
    }
    // Requirements and match expressions: {key, operator, values}.
    if (typeof value.key === 'string' && Array.isArray(value.values)) {
      const names = NAME_LABELS.has(value.key);
      value.values = value.values.map((v) => (typeof v === 'string' ? (names ? this.alias(v) : this.labelValue(v)) : v));
    }
    if (parentKey === 'addresses' && typeof value.type === 'string' && NAME_ADDRESSES.has(value.type) && typeof value.address === 'string') {
      value.address = this.alias(value.address);
    }
    const labelMap = parentKey !== undefined && LABEL_MAPS.has(parentKey);
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string') {
        if (NAME_LABELS.has(k) || NAME_FIELDS.has(k)) value[k] = this.alias(v);
        else if (labelMap) value[k] = this.labelValue(v);
        else if (TEXT_FIELDS.has(k)) value[k] = this.text(v);
      } else if (typeof v === 'object' && v !== null) {
        this.walk(v, k);
      }
    }
  }

  /** A label or selector value: hashed when it is some object's name, so selectors keep matching what they matched. */
  private labelValue(v: string): string {
    return this.known.has(v) && !VOCABULARY.has(v) ? this.alias(v) : v;
  }
}

/** `<base>-<suffix>`: a pod's random five, a pod-template hash, a Job's or StatefulSet's number. */
const GENERATED_SUFFIX = /^(.+)-([a-z0-9]{5}|[a-z0-9]{8,10}|\d{1,10})$/;

/** A name-like token: DNS names, with no trailing dot (the end of a sentence) and no leading punctuation. */
const TOKEN = /[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?/g;

/** Default key location: with the customer, outside any bundle, reused so that bundles hash names alike. */
export function defaultKeyPath(): string {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'karpdoctor', 'anonymize.key');
}

/** Reads the key, or creates the file with a new random key (0600). */
export function loadOrCreateKey(path: string): { key: Buffer; created: boolean } {
  if (existsSync(path)) {
    const raw = readFileSync(path);
    const text = raw.toString('utf8').trim();
    const key = /^[0-9a-f]{32,}$/i.test(text) ? Buffer.from(text, 'hex') : raw;
    if (key.length < 16) throw new Error(`the anonymization key in ${path} is too short (at least 16 bytes)`);
    return { key, created: false };
  }
  const key = randomBytes(32);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, created: true };
}
