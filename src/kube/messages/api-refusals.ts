/**
 * kubectl's report of the API server refusing an object a person applied (docs/karpenter-behaviour.md §8.7): the CRD's
 * schema or CEL rules, Karpenter's own validating webhook (v1alpha5 and v1beta1 objects, until v1.0 dropped it), and
 * the two field checks (kubectl's client-side schema, the server's strict decoding). Vocabulary shared by the log reader,
 * which keeps such a line as kubectl's record, and the rule that says what it refused.
 */
import { KIND_SHAPES } from '../kind-fields.js';
import { KARPENTER_RESOURCES } from '../kinds.js';
import type { MessageRow } from './rows.js';

export type ApplyRefusal = 'schema-or-cel' | 'webhook-denied' | 'client-validation' | 'strict-decoding';

const KINDS = 'NodePool|NodeClaim|EC2NodeClass|AKSNodeClass|Provisioner|Machine|AWSNodeTemplate|NodeOverlay';
/** `Error from server (Invalid): error when creating "pool.yaml": ` and kin: kubectl's frame around the server's words. */
const FRAME = String.raw`^(?:Error from server \(\w+\): )?(?:error when (?:creating|applying|patching|replacing|updating) "[^"]*": )?`;

interface RefusalRow extends MessageRow<ApplyRefusal> {
  /** Which groups of the match are the kind, the name and what the server says is wrong. */
  groups: { kind?: number; name?: number; why: number };
}

export const APPLY_REFUSALS: readonly RefusalRow[] = [
  {
    // kubectl's rendering of a 422 (`The NodePool "x" is invalid: spec…: Invalid value: …`), or the server's own
    // (`NodePool.karpenter.sh "x" is invalid: …`) after kubectl's frame: OpenAPI schema and CEL rules, v0.32+ CRDs.
    re: new RegExp(`${FRAME}(?:The (${KINDS}) "([^"]+)"|(${KINDS})\\.karpenter\\.(?:sh|k8s\\.aws|azure\\.com) "([^"]+)") is invalid: (.+)$`),
    signal: 'schema-or-cel',
    example: 'The NodePool "default" is invalid: spec.template.spec.requirements[0].key: Invalid value: "string": label domain "kubernetes.io" is restricted',
    printed: ['api-server'],
    groups: { kind: 1, name: 2, why: 5 },
  },
  {
    // Karpenter's validating webhook (validation.webhook.provisioners.karpenter.sh ≤ v0.31, validation.webhook.karpenter.sh
    // v0.32–v0.37): the object is not named, the webhook's name gives the kind for v1alpha5.
    re: new RegExp(`^Error from server(?: \\(\\w+\\))?: (?:error when \\w+ "[^"]*": )?admission webhook "([^"]*karpenter[^"]*)" denied the request: (.+)$`),
    signal: 'webhook-denied',
    example:
      'Error from server (BadRequest): error when creating "provisioner.yaml": admission webhook "validation.webhook.provisioners.karpenter.sh" denied the request: validation failed: expected exactly one, got both: spec.provider, spec.providerRef',
    printed: ['api-server'],
    groups: { kind: 1, why: 2 },
  },
  {
    // kubectl's client-side schema check (before --validate=strict): `error validating "f.yaml": error validating data: ValidationError(NodePool.spec): unknown field …`,
    // which kubectl prints after its own `error: ` when it exits on it.
    re: new RegExp(
      `^(?:error: )?error validating "[^"]*": error validating data: \\[?ValidationError\\((${KINDS})((?:\\.\\w+)*)\\): (.+?)\\]?;?(?: if you choose to ignore these errors.*)?$`,
    ),
    signal: 'client-validation',
    example:
      'error: error validating "provisioner.yaml": error validating data: ValidationError(Provisioner.spec): unknown field "consolidationPolicy" in sh.karpenter.v1alpha5.Provisioner.spec; if you choose to ignore these errors, turn validation off with --validate=false',
    printed: ['api-server'],
    groups: { kind: 1, why: 3 },
  },
  {
    // Server-side field validation (kubectl ≥ 1.25): `NodePool in version "v1" cannot be handled as a NodePool: strict decoding error: unknown field "spec.x"`.
    re: new RegExp(`${FRAME}(${KINDS}) in version "\\w+" cannot be handled as an? \\w+: (.+)$`),
    signal: 'strict-decoding',
    example:
      'Error from server (BadRequest): error when creating "nodepool.yaml": NodePool in version "v1" cannot be handled as a NodePool: strict decoding error: unknown field "spec.template.spec.kubelet"',
    printed: ['api-server'],
    groups: { kind: 1, why: 2 },
  },
  {
    // The same refusal quoted from where the server's reason starts (`strict decoding error: unknown field "spec.x"`):
    // the kind is not named; the field may still say which kind and version it belongs to (`declaredElsewhere`).
    re: new RegExp(`${FRAME}strict decoding error: (.+)$`),
    signal: 'strict-decoding',
    example: 'strict decoding error: unknown field "spec.kubeletConfiguration"',
    printed: ['api-server'],
    groups: { why: 1 },
  },
];

/**
 * Karpenter's validating webhook denying a request, quoted from its own words on: no kubectl or Terraform frame before
 * it and no controller record around it, so nothing says who sent the object it refused (a person applying a NodePool,
 * or the controller creating a NodeClaim from one). The words are the webhook row's, without the frame.
 */
export function webhookDenialAlone(line: string): boolean {
  return /^admission webhook \\?"[^"\\]*karpenter[^"\\]*\\?" denied the request: /.test(line.trim());
}

export interface ApplyRefusalSeen {
  signal: ApplyRefusal;
  /** Helm printed the refusal inside its own frame (`Error: UPGRADE FAILED: …`); kubectl otherwise. */
  printedBy?: 'helm';
  kind?: string;
  name?: string;
  why: string;
}

/**
 * Helm's frame around the API server's words (helm `cmd/helm/upgrade.go`, `install.go`: `UPGRADE FAILED`, `INSTALLATION
 * FAILED`; `pkg/kube/client.go` wraps a refused patch in `cannot patch "name" with kind Kind: `): what follows is the
 * refusal as kubectl would print it without its own frame.
 */
const HELM_FRAME = /^Error: (?:UPGRADE|INSTALLATION) FAILED: (?:cannot patch "[^"]*" with kind \w+: )?/;

/** The refusal of a Karpenter object a line of kubectl's (or Helm's) output states, if it states one. */
export function applyRefusalIn(line: string): ApplyRefusalSeen | undefined {
  const frame = HELM_FRAME.exec(line.trim())?.[0];
  if (frame) {
    const inner = refusalIn(line.trim().slice(frame.length));
    return inner ? { ...inner, printedBy: 'helm' } : undefined;
  }
  return refusalIn(line);
}

function refusalIn(line: string): ApplyRefusalSeen | undefined {
  for (const row of APPLY_REFUSALS) {
    const m = row.re.exec(line.trim());
    if (!m) continue;
    const g = row.groups;
    let kind = g.kind ? m[g.kind] : undefined;
    let name = g.name ? m[g.name] : undefined;
    if (row.signal === 'schema-or-cel' && !kind) [kind, name] = [m[3], m[4]];
    if (row.signal === 'webhook-denied') kind = /provisioner/i.test(kind ?? '') ? 'Provisioner' : undefined;
    return { signal: row.signal, ...(kind ? { kind } : {}), ...(name ? { name } : {}), why: m[g.why]!.trim() };
  }
  return undefined;
}

export interface RefusedField {
  kind: string;
  apiVersion: string;
  /** Dotted, from the object's root: `spec.disruption.consolidateAfter`. */
  path: string;
}

/**
 * The field an unknown-field refusal names, with the API version the refusing schema is of: kubectl's check names the
 * schema's OpenAPI definition (`sh.karpenter.v1alpha5.Provisioner.spec`, the group's labels reversed), strict
 * decoding names the version (`NodePool in version "v1"`) and the field's whole path.
 */
export function refusedUnknownField(line: string): RefusedField | undefined {
  const text = line.trim();
  const client = /ValidationError\((\w+)((?:\.\w+)*)\): unknown field "(\w+)" in ([\w.-]+?)\.(v\d\w*)\.\1\b/.exec(text);
  if (client && APPLY_REFUSALS.some((r) => r.signal === 'client-validation' && r.re.test(text))) {
    const group = client[4]!.split('.').reverse().join('.');
    return { kind: client[1]!, apiVersion: `${group}/${client[5]!}`, path: `${client[2]!.slice(1)}.${client[3]!}`.replace(/^\./, '') };
  }
  const strict = new RegExp(`(${KINDS}) in version "(v\\w+)" cannot be handled as an? \\w+: strict decoding error: unknown field "([\\w.]+)"`).exec(text);
  const group = strict ? KARPENTER_RESOURCES.find((r) => r.kind === strict[1])?.group : undefined;
  if (strict && group) return { kind: strict[1]!, apiVersion: `${group}/${strict[2]!}`, path: strict[3]! };
  return undefined;
}

/** The field a strict-decoding refusal quoted without its kind names (`strict decoding error: unknown field "spec.x"`). */
export function refusedFieldUnnamedKind(line: string): string | undefined {
  const text = line.trim().replace(HELM_FRAME, '');
  const row = APPLY_REFUSALS.find((r) => r.signal === 'strict-decoding' && r.groups.kind === undefined)!;
  const why = row.re.exec(text)?.[1];
  return why ? /^unknown field "([\w.]+)"/.exec(why)?.[1] : undefined;
}

/**
 * The Karpenter kinds and API versions, other than the one refusing, whose schema declares the refused field
 * (kube/kind-fields.ts): a manifest written for one of them, applied where the CRDs serve another. Of the named kind
 * only, when the refusal names one.
 */
export function declaredElsewhere(f: { kind?: string; apiVersion?: string; path: string }): Array<{ kind: string; apiVersion: string }> {
  return KIND_SHAPES.filter(
    (s) => /karpenter/.test(s.apiVersion) && (!f.kind || s.kind === f.kind) && s.apiVersion !== f.apiVersion && s.paths.includes(f.path),
  ).map((s) => ({ kind: s.kind, apiVersion: s.apiVersion }));
}

/**
 * The field is one the kind declares at that API version in the newest release serving it (kube/kind-fields.ts): a
 * CRD refusing it is older than that release. Unknown past the table's depth or under a free-form field.
 */
export function kindDeclares(f: RefusedField): boolean {
  const shape = KIND_SHAPES.find((s) => s.apiVersion === f.apiVersion && s.kind === f.kind);
  return shape !== undefined && shape.paths.includes(f.path);
}
