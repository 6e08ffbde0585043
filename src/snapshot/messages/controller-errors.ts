/**
 * Errors of the controller that no rule judges but that state a cause plainly (docs/karpenter-behaviour.md §8.4, §9):
 * its admission webhook failing, the pricing API refused, STS out of reach. Each row has the wording that rules it
 * out, where a similar text is another mechanism's.
 */
import { ALL_LOGS, type MessageTable } from './classify.js';

export type ControllerError = 'webhook-unreachable' | 'pricing-unavailable' | 'sts-unreachable' | 'queue-missing' | 'queue-denied' | 'startup-check-failed';

export const CONTROLLER_ERRORS: MessageTable<ControllerError> = [
  {
    // ≤ v0.37 defaulting/validation webhooks (`*.webhook.karpenter.sh`, `*.karpenter.k8s.aws`), TLS or no endpoint.
    re: /failed calling webhook \\?"[^"\\]*karpenter[^"\\]*\\?"[^\n]*?(?:x509: |tls: |no endpoints available for service|connection refused|context deadline exceeded)|secret \\?"karpenter-cert\\?" is missing/i,
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
  // The interruption controller's SQS queue (settings.interruptionQueue): gone, or not readable by the controller role.
  { re: /NonExistentQueue|The specified queue does not exist/, signal: 'queue-missing', printed: ALL_LOGS },
  { re: /not authorized to perform:? sqs:\w+/i, signal: 'queue-denied', printed: ALL_LOGS },
  // The AWS operator's start-up check (a dry-run EC2 call, then Fatal): the controller exits before any launch, whatever
  // error follows the comma (AccessDenied on its role, NoCredentialProviders, a timeout).
  { re: /Checking EC2 API connectivity, /, signal: 'startup-check-failed', printed: ['console', 'json'] },
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

/** The controller errors a text states. */
export function controllerErrorsIn(text: string): ControllerError[] {
  return CONTROLLER_ERRORS.filter((r) => r.re.test(text)).map((r) => r.signal);
}
