/**
 * The controller's records of the API server refusing an object it creates (catalog row controller-error/object-refused):
 * a NodeClaim built from a NodePool's template that breaks the CRD's rules (a restricted label domain in the
 * requirements, more requirements than the CRD allows). No node is launched for that pool while it lasts, and the fix
 * is in the pool, so the finding names the pool when the NodeClaim's name gives it.
 */
import { NAME_NOT_SHOWN, nameShown } from '../../kube/fields.js';
import type { RuleContext } from '../../engine/rule.js';
import type { LogRecord } from '../../kube/types.js';
import { declaredElsewhere, kindDeclares, refusedFieldUnnamedKind, refusedUnknownField, type RefusedField } from '../../kube/messages/api-refusals.js';
import { objectRefusal } from '../../snapshot/messages/controller-errors.js';
import { logRefs, logText } from '../../snapshot/messages/karpenter-logs.js';
import { getCommand, refOf, reportFromRecords, seenText, type StatedCause, type StatedMessage } from './records-only.js';

const POOL_OF: Record<string, string> = { NodeClaim: 'NodePool', Machine: 'Provisioner' };

function refusedByController(log: LogRecord): StatedCause | undefined {
  // kubectl's or Terraform's refusal of an apply is the user's, judged from the object itself.
  if (log.fields.printedBy !== undefined) return undefined;
  const r = objectRefusal(logText(log));
  if (!r) return undefined;
  const refs = logRefs(log.fields);
  const claimKind = r.kind && POOL_OF[r.kind] ? r.kind : refs.machine ? 'Machine' : 'NodeClaim';
  const claim = r.kind && !POOL_OF[r.kind] ? undefined : (r.name ?? refs.nodeClaim);
  const pool = refs.nodePool ?? (claim ? /^(.*)-[a-z0-9]{5}$/.exec(claim)?.[1] : undefined);
  const detail = `${claimKind} ${claim ?? NAME_NOT_SHOWN}: ${r.why.length > 240 ? `${r.why.slice(0, 239)}…` : r.why}`;
  // Quoted from the webhook's words on: who sent what it refused is not said, so it is neither kubectl's nor the controller's.
  if (log.fields.quotedAlone !== undefined)
    return {
      object: refOf(POOL_OF[claimKind]!, pool ?? ''),
      key: `quoted:${r.why}`,
      detail: `Karpenter's validating webhook denied the request: ${detail.slice(detail.indexOf(': ') + 2)}`,
    };
  if (r.kind && !POOL_OF[r.kind]) return { object: refOf(r.kind, r.name ?? ''), key: r.why, detail: `${r.kind} ${r.name ?? ''}: ${r.why}` };
  if (pool) return { object: refOf(POOL_OF[claimKind]!, pool), key: r.why.replace(/"[^"]*"/g, ''), detail };
  // The webhook's wording names no object: the pool is the one the record leaves unnamed, `kubectl get` lists them all.
  return claim ? { object: refOf(claimKind, claim), key: r.why, detail } : { object: refOf(POOL_OF[claimKind]!, ''), key: r.why, detail };
}

/** What each check that refuses an apply is, for the message. */
const REFUSED_BY: Record<string, string> = {
  'schema-or-cel': "its CRD's schema or validation rules",
  'webhook-denied': "Karpenter's validating webhook",
  'client-validation': "kubectl's schema check",
  'strict-decoding': "the API server's field validation (an unknown or duplicate field)",
};

/**
 * kubectl's report of the API server refusing an applied Karpenter object (kube/messages/api-refusals.ts): the change
 * never reached the cluster, so what runs is the previous version of the object, or none.
 */
function refusedApply(log: LogRecord): StatedCause | undefined {
  // A field the kind has at that version, or at another, refused: the CRDs and the manifest are of different releases
  // (karpenter-api-version-mismatch says which), not a value of the manifest wrong.
  if (staleCrdRefusal(log) || otherVersionRefusal(log)) return undefined;
  const signal = typeof log.fields.refusal === 'string' ? log.fields.refusal : undefined;
  const kind = typeof log.fields.refusedKind === 'string' ? log.fields.refusedKind : undefined;
  if (!signal || !kind) return undefined;
  const name = typeof log.fields.refusedName === 'string' ? log.fields.refusedName : '';
  const why = String(log.fields.refusedWhy ?? '');
  return {
    object: refOf(kind, name),
    key: `apply:${why}`,
    detail: `${REFUSED_BY[signal] ?? 'the API server'}: ${why.length > 240 ? `${why.slice(0, 239)}…` : why}`,
  };
}

/** The message of a refusal the records state, for the rule's meta.messages. */
export const REFUSED_MESSAGES = {
  statedObjectRefused: 'The API server refuses an object the controller creates ({{seen}}), {{detail}}. {{consequence}}',
  statedRefusalQuotedAlone:
    'A refusal quoted without who printed it ({{seen}}): {{detail}}. Nothing in the quote says whether a {{poolKind}} someone applied or a NodeClaim the controller built from one was refused; either way what it names is set in the {{poolKind}}.',
  statedApplyRefused:
    'kubectl reports the apply of {{kind}} {{name}} refused ({{seen}}) by {{detail}}. The change never reached the cluster: Karpenter goes on with the version of it already there, or without it if there is none.',
} as const;

export function reportRefusedObjects(ctx: Pick<RuleContext, 'snapshot' | 'report'>): void {
  reportFromRecords(ctx, {
    messages: REFUSED_MESSAGES,
    // The API server's verdict on what the controller built is Karpenter's, not our reading of the pool's manifest.
    statedWins: true,
    fromLog: (log) => (log.fields.refusal !== undefined ? refusedApply(log) : refusedByController(log)),
    message: (cause, seen): StatedMessage =>
      cause.key?.startsWith('quoted:')
        ? { messageId: 'statedRefusalQuotedAlone', data: { seen: seenText(seen), detail: cause.detail ?? '', poolKind: cause.object.kind } }
        : cause.key?.startsWith('apply:')
          ? {
              messageId: 'statedApplyRefused',
              data: { kind: cause.object.kind, name: cause.object.name || NAME_NOT_SHOWN, seen: seenText(seen), detail: cause.detail ?? '' },
            }
          : {
              messageId: 'statedObjectRefused',
              data: {
                seen: seenText(seen),
                detail: cause.detail ?? '',
                consequence:
                  cause.object.kind === 'NodePool' || cause.object.kind === 'Provisioner'
                    ? `The controller builds it from ${nameShown(cause.object.name) ? `${cause.object.kind} ${cause.object.name}` : `a ${cause.object.kind} the record does not name`}, so no node is launched for that pool's pending pods until the pool changes.`
                    : 'Nothing is launched from it until what it is built from changes.',
              },
            },
    fix: (cause) =>
      cause.key?.startsWith('quoted:')
        ? `Find the ${cause.object.kind} that holds what the refusal names (kubectl get ${cause.object.kind.toLowerCase()}s -o yaml, or its manifest), change it there, and check a manifest with kubectl apply --dry-run=server -f <file> before applying it again`
        : cause.key?.startsWith('apply:')
          ? `Fix what the refusal names in the manifest of ${cause.object.kind} ${cause.object.name || NAME_NOT_SHOWN}, check it with kubectl apply --dry-run=server -f <file>, then apply it again`
          : `Change the field the API server names in ${nameShown(cause.object.name) ? `${cause.object.kind} ${cause.object.name}` : `the ${cause.object.kind} the pending pods select`} (its template's requirements, labels or taints become the NodeClaim's), ` +
            'then watch the next NodeClaim get created: kubectl get nodeclaims -w',
    confirmWith: (cause) => getCommand(cause.object),
  });
}

/**
 * kubectl's (or Helm's) refusal of a field the kind declares at the version applied (kube/messages/api-refusals.ts): the CRD in the
 * cluster is older than the release that added it (Helm installs a chart's crds/ once and never upgrades them).
 */
export function staleCrdRefusal(log: LogRecord): RefusedField | undefined {
  if ((log.fields.printedBy !== 'kubectl' && log.fields.printedBy !== 'helm') || log.fields.refusal === undefined) return undefined;
  const f = refusedUnknownField(log.message);
  return f && kindDeclares(f) ? f : undefined;
}

/**
 * A refusal of an unknown field that another API version of a Karpenter kind declares (kube/messages/api-refusals.ts
 * `declaredElsewhere`): the manifest is written for another version than the CRDs in the cluster serve — a v1beta1
 * field under `karpenter.sh/v1`, a Provisioner's `spec.kubeletConfiguration` where NodePools are served. Also when the
 * quote starts at the server's reason and names no kind: the field says which kinds have it.
 */
export function otherVersionRefusal(
  log: LogRecord,
): { path: string; refusing?: RefusedField; declaredBy: Array<{ kind: string; apiVersion: string }> } | undefined {
  if (log.fields.refusal === undefined || staleCrdRefusal(log)) return undefined;
  const refusing = refusedUnknownField(log.message);
  const path = refusing?.path ?? refusedFieldUnnamedKind(log.message);
  if (!path) return undefined;
  const declaredBy = declaredElsewhere(refusing ?? { path });
  return declaredBy.length ? { path, ...(refusing ? { refusing } : {}), declaredBy } : undefined;
}
