/**
 * Errors of the controller that no rule judges but that state a cause plainly (docs/karpenter-behaviour.md §8.4, §9):
 * its admission webhook failing, the pricing API refused, STS out of reach. Each row has the wording that rules it
 * out, where a similar text is another mechanism's.
 */
import { ALL_LOGS, type MessageTable } from './classify.js';

export type ControllerError =
  | 'webhook-unreachable'
  | 'pricing-unavailable'
  | 'sts-unreachable'
  | 'aws-endpoint-unreachable'
  | 'queue-missing'
  | 'queue-denied'
  | 'startup-check-failed'
  | 'object-refused'
  | 'nil-pointer-panic';

/**
 * An AWS service endpoint the controller calls (`ec2.eu-north-1.amazonaws.com`, `sts.…`, `ssm.…`, `sqs.…`, `eks.…`,
 * `iam.amazonaws.com`, `api.pricing.…`), named in the request that failed.
 */
const AWS_ENDPOINT = String.raw`\b((?:api\.)?(sts|ec2|ssm|sqs|eks|iam|pricing)(?:[.-][a-z0-9-]+)*\.amazonaws\.com(?:\.cn)?)\b`;
/** The network failing under the request (Go's net and net/http wordings), not a refusal by the service. */
const NETWORK_FAILURE = String.raw`(i\/o timeout|no such host|connection refused|connection reset by peer|network is unreachable|no route to host|TLS handshake timeout|Client\.Timeout exceeded)`;

const KARPENTER_KINDS = 'NodeClaim|Machine|NodePool|Provisioner|EC2NodeClass|AWSNodeTemplate|NodeOverlay';

export const CONTROLLER_ERRORS: MessageTable<ControllerError> = [
  {
    // ≤ v0.37 defaulting/validation webhooks (`*.webhook.karpenter.sh`, `*.karpenter.k8s.aws`), TLS or no endpoint; and
    // a configuration an older chart left behind, calling a controller that no longer serves it: the API server's
    // resolver finds no such port (`no service port 8443 found for service "karpenter"`) or Service, or the controller
    // answers with a body that is no Status (client-go: "the server rejected our request for an unknown reason").
    re: /failed calling webhook \\?"[^"\\]*karpenter[^"\\]*\\?"[^\n]*?(?:x509: |tls: |no endpoints available for service|connection refused|context deadline exceeded|the server rejected our request for an unknown reason|no service port \d+ found for service|service \\?"[^"\\]+\\?" not found)|secret \\?"karpenter-cert\\?" is missing/i,
    signal: 'webhook-unreachable',
    printed: ['api-server', ...ALL_LOGS],
  },
  {
    re: /(?:updating|update|retrieving|failed to update) (?:on-demand|spot) pric[\s\S]*?(?:AccessDenied|UnauthorizedOperation|not authorized|RequestError|i\/o timeout|no such host)/i,
    signal: 'pricing-unavailable',
    printed: ALL_LOGS,
  },
  {
    re: /WebIdentityErr: failed to retrieve credentials[\s\S]*?(?:send request failed|i\/o timeout|no such host|connection refused)/,
    signal: 'sts-unreachable',
    printed: ALL_LOGS,
  },
  {
    // The request to an AWS endpoint never got an answer: SDK v1 (≤ v1.0) "RequestError: send request failed\ncaused by:
    // Post \"https://ec2.<region>.amazonaws.com/\": dial tcp <ip>:443: i/o timeout"; SDK v2 "operation error SSM:
    // GetParameter, … request send failed, Post \"https://ssm.<region>.amazonaws.com/\": dial tcp: lookup … no such host".
    // The host comes first, the failure after it, in every generation.
    re: new RegExp(`${AWS_ENDPOINT}[^\n]*?${NETWORK_FAILURE}`),
    signal: 'aws-endpoint-unreachable',
    printed: ALL_LOGS,
    carries: ['endpoint'],
  },
  // The interruption controller's SQS queue (settings.interruptionQueue): gone, or not readable by the controller role.
  { re: /NonExistentQueue|The specified queue does not exist/, signal: 'queue-missing', printed: ALL_LOGS },
  { re: /not authorized to perform:? sqs:\w+/i, signal: 'queue-denied', printed: ALL_LOGS },
  // The AWS operator's start-up check (a dry-run EC2 call, then Fatal): the controller exits before any launch, whatever
  // error follows the comma (AccessDenied on its role, NoCredentialProviders, a timeout).
  { re: /Checking EC2 API connectivity, /, signal: 'startup-check-failed', printed: ['console', 'json'] },
  {
    // Go's runtime, not Karpenter: a nil field dereferenced. Its trace (`stacktrace` of the record) says whose.
    re: /panic: runtime error: invalid memory address or nil pointer dereference/,
    signal: 'nil-pointer-panic',
    printed: ALL_LOGS,
  },
  {
    // The API server refuses an object of a Karpenter kind: its schema or CEL rules (`NodeClaim.karpenter.sh "x" is
    // invalid: spec.requirements[4].key: Invalid value: …`, every generation) or, up to v0.32, Karpenter's own
    // validating webhook (`admission webhook "validation.webhook.karpenter.sh" denied the request: …`). In a controller
    // record it is an object the controller itself creates: the NodeClaim (≤ v0.31 Machine) it builds from a pool.
    re: new RegExp(
      `\\b(${KARPENTER_KINDS})\\.karpenter\\.(?:sh|k8s\\.aws) \\\\?"([^"\\\\]+)\\\\?" is invalid: ` +
        `|admission webhook \\\\?"[^"\\\\]*karpenter[^"\\\\]*\\\\?" denied the request: `,
    ),
    signal: 'object-refused',
    printed: ['api-server', ...ALL_LOGS],
    carries: ['nodeclaim'],
  },
];

/** Texts that look like a row but are another mechanism's: the conversion webhook (a CRD mismatch), a refused role. */
const NOT: Partial<Record<ControllerError, RegExp>> = {
  'webhook-unreachable': /conversion webhook|webhook conversion|\/conver/i,
  'sts-unreachable': /\bAccessDenied\b/,
};

/** The row's wording and what rules it out, for a stated-cause table. */
export function controllerError(signal: ControllerError): { re: RegExp; unless?: (text: string) => boolean } {
  const row = CONTROLLER_ERRORS.find((r) => r.signal === signal)!;
  const not = NOT[signal];
  return { re: row.re, ...(not ? { unless: (text: string) => not.test(text) } : {}) };
}

export interface ObjectRefusal {
  /** The refused object's kind and name, when the wording names them (the webhook's names neither). */
  kind?: string;
  name?: string;
  /** What the API server or webhook says is wrong, as it says it. */
  why: string;
}

/** The refusal of a Karpenter object a text states: which object and why, if it states one. */
export function objectRefusal(text: string): ObjectRefusal | undefined {
  const row = CONTROLLER_ERRORS.find((r) => r.signal === 'object-refused')!;
  const m = row.re.exec(text);
  if (!m) return undefined;
  const why = text
    .slice(m.index + m[0].length)
    .replace(/\\"/g, '"')
    .trim();
  // The webhook's wording names no kind; ≤ v0.31 the provisioner's wrapping does ("launching machine, …").
  const kind = m[1] ?? (/\bmachine\b/i.test(text.slice(0, m.index)) ? 'Machine' : undefined);
  return { ...(kind ? { kind } : {}), ...(m[2] ? { name: m[2] } : {}), why };
}

/** The AWS endpoint a text says the controller could not reach, its service and region, and how the network failed. */
export function unreachableEndpoint(text: string): { host: string; service: string; region?: string; failure: string } | undefined {
  const row = CONTROLLER_ERRORS.find((r) => r.signal === 'aws-endpoint-unreachable')!;
  const m = row.re.exec(text.replace(/\\"/g, '"'));
  if (!m) return undefined;
  const host = m[1]!;
  const region = /\.([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d)\.amazonaws\.com/.exec(host)?.[1];
  return { host, service: m[2]!, ...(region ? { region } : {}), failure: m[3]! };
}

/**
 * A Karpenter frame of a panic's trace that resolves a pool's node class reference (v1beta1/v1 `nodeClassRef`, v1alpha5
 * `providerRef` / inline `provider`): `(*CloudProvider).resolveNodeClassFromNodePool`, `resolveNodeTemplate`, … A
 * pool without the reference panics there (a nil pointer), the first frame under `panic(` being Karpenter's own.
 */
export function nodeClassPanicFrame(stacktrace: string): string | undefined {
  const lines = stacktrace.split('\n').map((l) => l.trim());
  const karpenter = lines.filter((l) => /^(?:github\.com\/aws\/karpenter|sigs\.k8s\.io\/karpenter)[\w./-]*\.\S+\(/.test(l));
  const first = karpenter[0];
  if (!first) return undefined;
  const fn = /([\w.]+\.(?:\(\*?\w+\)\.)?\w+)\(/.exec(first.replace(/^.*\//, ''))?.[1];
  return fn && /NodeClass|NodeTemplate|ProviderRef|nodeClassRef|providerRef/.test(fn) ? fn : undefined;
}

/** The controller errors a text states. */
export function controllerErrorsIn(text: string): ControllerError[] {
  return CONTROLLER_ERRORS.filter((r) => r.re.test(text)).map((r) => r.signal);
}
