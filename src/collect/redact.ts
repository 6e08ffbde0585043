/**
 * Redaction of a support bundle's objects: what leaves the cluster is what the rules read, never credentials. Every
 * string of every object goes through the one free-text redactor (`redact-text.ts`, the catalog in
 * `secret-shapes.ts`); on top of it, fields and annotations named like credentials lose their whole value, and
 * every environment value outside the controller settings is replaced. Values are replaced by a marker rather than
 * removed where rules point into arrays by index (env entries, args), so JSON pointers in findings stay true.
 */
import type { KubeObject } from '../kube/types.js';
import { CONTROLLER_SETTING_NAMES } from '../loaders/controller-settings.js';
import { isRecord } from '../kube/fields.js';
import { LAST_APPLIED_ANNOTATION as LAST_APPLIED } from '../kube/well-known.js';
import { REDACTED, redactText } from './redact-text.js';
import { SECRET_SHAPES, isCredentialName } from './secret-shapes.js';

export { REDACTED, redactText };

/** Env entries whose values are kept (still redacted as text): the controller settings rules read. */
const ENV_ALLOW_LIST: readonly string[] = CONTROLLER_SETTING_NAMES;
const KEEP_ENV = new Set<string>(ENV_ALLOW_LIST);
const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** What the manifest says about redaction. */
export const REDACTION_SETTINGS = {
  marker: REDACTED,
  secrets: 'never listed',
  configMaps: 'not collected (no rule needs them); data and binaryData dropped if any',
  managedFields: 'removed',
  lastAppliedConfiguration: `annotation ${LAST_APPLIED} removed`,
  env: 'every container/initContainer/ephemeralContainer env value replaced by the marker, except the allow-list; names and valueFrom references kept',
  envAllowList: [...ENV_ALLOW_LIST],
  credentialNames: 'the whole value of a field, annotation or flag named like a credential (password, secret, token, api-key, …) replaced',
  text: 'every other string (log lines, messages, annotation values, args, commands, userData, allowed env values, URLs) redacted by shape',
  shapes: SECRET_SHAPES.map((s) => s.id),
};

/** Redacts one object in place. Returns false for objects that must not be written at all (Secrets). */
export function redactObject(obj: KubeObject): boolean {
  if (obj.kind === 'Secret') return false;
  const meta = obj.metadata;
  delete meta.managedFields;
  if (meta.annotations) delete meta.annotations[LAST_APPLIED];
  if (obj.kind === 'ConfigMap') {
    delete obj.data;
    delete obj.binaryData;
  }
  redactStrings(obj);
  return true;
}

/** Every string, wherever it is: by its field's name, else by its shape; container lists get their own rules first. */
function redactStrings(value: Record<string, unknown> | unknown[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v === 'string') value[i] = redactText(v);
      else if (typeof v === 'object' && v !== null) redactStrings(v as Record<string, unknown>);
    });
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (typeof child === 'string') {
      value[key] = isCredentialName(key) && child !== '' ? REDACTED : redactText(child);
    } else if (typeof child === 'object' && child !== null) {
      if (CONTAINER_LISTS.has(key) && Array.isArray(child)) for (const c of child) if (isRecord(c)) redactContainer(c);
      redactStrings(child as Record<string, unknown>);
    }
  }
}

function redactContainer(c: Record<string, unknown>): void {
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      if (isRecord(e) && typeof e.value === 'string' && !(typeof e.name === 'string' && KEEP_ENV.has(e.name))) e.value = REDACTED;
    }
  }
  for (const key of ['args', 'command']) if (Array.isArray(c[key])) redactFlagValues(c[key] as unknown[]);
}

/**
 * A credential flag's value given as the next list item (`["--token", "x"]`, `["-p", "x"]`): the text redactor sees
 * one item at a time and cannot tell. Flags joined to their value (`--token=x`) are the text redactor's.
 */
function redactFlagValues(args: unknown[]): void {
  args.forEach((a, i) => {
    const flag = args[i - 1];
    if (typeof a !== 'string' || typeof flag !== 'string' || a.startsWith('-')) return;
    if ((/^--?[\w.-]+$/.test(flag) && isCredentialName(flag)) || (flag === '-p' && !/^(?:[/~.$]|\d[\d:]*$)/.test(a))) args[i] = REDACTED;
  });
}
