/**
 * Redaction of a support bundle: what leaves the cluster is what the rules read, never credentials. Values are
 * replaced by a marker rather than removed where rules point into arrays by index (env entries, args), so JSON
 * pointers in findings stay true. Runs on every object whatever load-time compaction already dropped.
 */
import type { KubeObject } from '../kube/types.js';
import { CONTROLLER_SETTING_NAMES } from '../loaders/controller-settings.js';
import { isRecord } from '../kube/fields.js';
import { LAST_APPLIED_ANNOTATION as LAST_APPLIED } from '../kube/well-known.js';

export const REDACTED = '<redacted>';

/** Env entries whose values are kept: the controller settings rules read; every other env value becomes the marker. */
const ENV_ALLOW_LIST: readonly string[] = CONTROLLER_SETTING_NAMES;
const KEEP_ENV = new Set<string>(ENV_ALLOW_LIST);

/** Keys (flags, settings, annotations) whose values look like credentials. */
const SECRET_KEY = /pass(word|wd)?|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|bearer/i;
const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];

/** What the manifest says about redaction. */
export const REDACTION_SETTINGS = {
  marker: REDACTED,
  secrets: 'never listed',
  configMaps: 'not collected (no rule needs them); data and binaryData dropped if any',
  managedFields: 'removed',
  lastAppliedConfiguration: `annotation ${LAST_APPLIED} removed`,
  env: 'every container/initContainer/ephemeralContainer env value replaced by the marker, except the allow-list; names and valueFrom references kept',
  envAllowList: [...ENV_ALLOW_LIST],
  args: 'values of --flags and annotations whose names look like credentials (password, secret, token, key, credential) replaced',
  userData: 'EC2NodeClass/AWSNodeTemplate spec.userData kept for the taint checks; PEM blocks, long base64 blobs and credential-looking settings replaced',
};

/** Redacts one object in place. Returns false for objects that must not be written at all (Secrets). */
export function redactObject(obj: KubeObject): boolean {
  if (obj.kind === 'Secret') return false;
  const meta = obj.metadata;
  delete meta.managedFields;
  if (meta.annotations) {
    delete meta.annotations[LAST_APPLIED];
    for (const k of Object.keys(meta.annotations)) if (SECRET_KEY.test(k)) meta.annotations[k] = REDACTED;
  }
  if (obj.kind === 'ConfigMap') {
    delete obj.data;
    delete obj.binaryData;
  }
  if ((obj.kind === 'EC2NodeClass' || obj.kind === 'AWSNodeTemplate') && isRecord(obj.spec) && typeof obj.spec.userData === 'string') {
    obj.spec.userData = redactText(obj.spec.userData);
  }
  redactContainers(obj);
  return true;
}

/** Every container list anywhere in the object: Pod specs, workload templates, CronJob job templates. */
function redactContainers(value: unknown): void {
  if (Array.isArray(value)) {
    for (const v of value) redactContainers(v);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (CONTAINER_LISTS.includes(key) && Array.isArray(child)) {
      for (const c of child) if (isRecord(c)) redactContainer(c);
    } else if (typeof child === 'object' && child !== null) {
      redactContainers(child);
    }
  }
}

function redactContainer(c: Record<string, unknown>): void {
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      if (isRecord(e) && typeof e.value === 'string' && !(typeof e.name === 'string' && KEEP_ENV.has(e.name))) e.value = REDACTED;
    }
  }
  for (const key of ['args', 'command']) if (Array.isArray(c[key])) c[key] = redactArgs(c[key] as unknown[]);
}

/** `--db-password=x` → `--db-password=<redacted>`; `--token x` → `--token <redacted>`; shell strings inside too. */
function redactArgs(args: unknown[]): unknown[] {
  return args.map((a, i) => {
    if (typeof a !== 'string') return a;
    const prev = args[i - 1];
    if (typeof prev === 'string' && /^--?[\w.-]+$/.test(prev) && SECRET_KEY.test(prev) && !a.startsWith('-')) return REDACTED;
    return redactText(a);
  });
}

const PEM = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g;
/** Base64 runs long enough to be keys, certificates or tokens (taint keys and flags never look like this). */
const BLOB = /[A-Za-z0-9+/]{60,}={0,2}/g;
/** `--flag=value`, `KEY=value`, `key: value`, `key = "value"` whose key looks like a credential. */
const SETTING =
  /((?:--?)?[\w.-]*(?:pass(?:word|wd)?|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|bearer)[\w.-]*["']?\s*(?:=|:\s|\s)\s*["']?)([^\s"',;]+)/gi;

/** Free text (userData, shell args): credential-looking values replaced, everything else kept for the rules. */
export function redactText(text: string): string {
  return text
    .replace(PEM, REDACTED)
    .replace(BLOB, REDACTED)
    .replace(SETTING, (_m, key: string, value: string) => (value === REDACTED || value.startsWith('--') ? `${key}${value}` : `${key}${REDACTED}`));
}
