/**
 * A live read → the entries of a support bundle: one `kubectl get -o json`-style list per kind and version (typed,
 * `PodList`, so that an empty list still says "there are none"), the controller logs in the must-gather layout
 * the log loader knows, and the manifest. Redaction always, anonymization on request, both before anything is
 * serialised.
 */
import type { LiveResult, ResourceOutcome } from '../loaders/live.js';
import type { KubeObject } from '../kube/types.js';
import type { Anonymizer } from './anonymize.js';
import { KEPT_NAMES } from './anonymize.js';
import { MANIFEST_FILE, MANIFEST_FORMAT, type BundleManifest, type ManifestKind } from '../loaders/readers/bundle-manifest.js';
import { redactServer } from './manifest.js';
import { REDACTION_SETTINGS, redactObject, redactText } from './redact.js';
import type { TarEntry } from './tar.js';

export interface BundleOptions {
  toolVersion: string;
  namespace?: string;
  /** Whether controller logs were asked for (`--no-logs` says no). */
  logs: boolean;
  anonymizer?: Anonymizer;
  collectedAt?: Date;
}

export interface Bundle {
  entries: TarEntry[];
  manifest: BundleManifest;
}

export function buildBundle(live: LiveResult, opts: BundleOptions): Bundle {
  const collectedAt = opts.collectedAt ?? new Date();
  const mtime = collectedAt.getTime();
  const anon = opts.anonymizer;
  const objects = live.objects.map((o) => o.object).filter(redactObject);
  if (anon) {
    anon.learn(objects);
    for (const o of objects) anon.object(o);
  }
  const byType = new Map<string, KubeObject[]>();
  for (const o of objects) {
    const key = `${o.apiVersion}|${o.kind}`;
    const list = byType.get(key);
    if (list) list.push(o);
    else byType.set(key, [o]);
  }

  const entries: TarEntry[] = [];
  const kinds: ManifestKind[] = [];
  const outcomes = [...live.resources].sort((a, b) => fileName(a).localeCompare(fileName(b)));
  for (const r of outcomes) {
    const base = { resource: r.resource, kind: r.kind, apiVersion: r.apiVersion, ...(r.input ? { input: r.input } : {}) };
    if (r.status !== 'listed') {
      kinds.push({
        ...base,
        status: r.status,
        ...(r.status !== 'absent' && r.input && unavailable(live, r.input) ? { reason: redactText(unavailable(live, r.input)!) } : {}),
        ...(r.message ? { message: redactText(r.message) } : {}),
      });
      continue;
    }
    const items = byType.get(`${r.apiVersion}|${r.kind}`) ?? [];
    const file = fileName(r);
    entries.push({ name: file, data: kubectlList(r.apiVersion, `${r.kind}List`, items), mtime });
    kinds.push({ ...base, status: 'collected', count: items.length, file });
  }

  const logFiles: string[] = [];
  const cut: NonNullable<BundleManifest['logs']['cut']> = [];
  for (const l of live.logTexts) {
    const ns = anon ? anon.alias(l.namespace) : l.namespace;
    const pod = anon ? anon.alias(l.pod) : l.pod;
    // must-gather layout: namespaces/<ns>/pods/<pod>/<container>/<container>/logs/current.log
    const name = `logs/namespaces/${ns}/pods/${pod}/${l.container}/${l.container}/logs/current.log`;
    // Whole text at once: a PEM block or a wrapped record spans lines.
    const redacted = redactText(l.text);
    const text = anon
      ? redacted
          .split('\n')
          .map((line) => anon.text(line))
          .join('\n')
      : redacted;
    entries.push({ name, data: text, mtime });
    logFiles.push(name);
    if (l.cut) cut.push({ file: name, ...l.cut });
  }

  const manifest: BundleManifest = {
    format: MANIFEST_FORMAT,
    tool: { name: 'karpdoctor', version: opts.toolVersion },
    collectedAt: collectedAt.toISOString(),
    cluster: { context: anon ? anon.alias(live.context) : live.context, server: redactServer(live.server) },
    namespace: opts.namespace ? (anon ? anon.alias(opts.namespace) : opts.namespace) : null,
    kinds,
    logs: !opts.logs
      ? { status: 'not requested', files: [] }
      : logFiles.length
        ? { status: 'collected', ...(live.logStatus ? { detail: redactText(live.logStatus) } : {}), files: logFiles, ...(cut.length ? { cut } : {}) }
        : { status: 'not collected', detail: redactText(live.logStatus ?? 'no controller logs were read'), files: [] },
    redaction: REDACTION_SETTINGS,
    anonymization: anon ? { enabled: true, algorithm: 'HMAC-SHA256', keyFingerprint: anon.keyFingerprint, keptNames: KEPT_NAMES } : { enabled: false },
  };
  entries.unshift({ name: MANIFEST_FILE, data: `${JSON.stringify(manifest, null, 4)}\n`, mtime });
  return { entries, manifest };
}

/** Why a kind's list is not in the bundle: its 403, or why it failed or could not be finished. */
function unavailable(live: LiveResult, input: string): string | undefined {
  return live.denied.get(input) ?? live.incomplete.get(input);
}

/** `pods.json`, `deployments.v1.apps.json`, `nodepools.v1beta1.karpenter.sh.json` (kubectl's resource.version.group). */
function fileName(r: ResourceOutcome): string {
  const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/') : ['', r.apiVersion];
  const resource = r.resource.split('.')[0]!;
  return group ? `${resource}.${version}.${group}.json` : `${resource}.json`;
}

/** kubectl writes apiVersion and kind first. */
function typeFirst(o: KubeObject): KubeObject {
  const { apiVersion, kind, ...rest } = o;
  return { apiVersion, kind, ...rest } as KubeObject;
}

/**
 * `kubectl get -o json` of a list, byte for byte (4-space indent), one chunk per item: a cluster's pod list can be
 * larger than the longest string V8 can hold, so it is never one string.
 */
function kubectlList(apiVersion: string, kind: string, items: KubeObject[]): Buffer[] {
  const tail = `    "kind": ${JSON.stringify(kind)},\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n`;
  if (!items.length) return [Buffer.from(`{\n    "apiVersion": ${JSON.stringify(apiVersion)},\n    "items": [],\n${tail}`)];
  const chunks = [Buffer.from(`{\n    "apiVersion": ${JSON.stringify(apiVersion)},\n    "items": [\n`)];
  items.forEach((item, i) => {
    const json = JSON.stringify(typeFirst(item), null, 4).replace(/^/gm, '        ');
    chunks.push(Buffer.from(i < items.length - 1 ? `${json},\n` : `${json}\n`));
  });
  chunks.push(Buffer.from(`    ],\n${tail}`));
  return chunks;
}
