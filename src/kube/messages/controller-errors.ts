/**
 * Errors of the controller that no rule judges but that state a cause plainly (docs/karpenter-behaviour.md §8.4, §9):
 * its admission webhook failing, the pricing API refused, STS out of reach. Data at the bottom layer: the log parser
 * reads one quoted alone as the error record it came from; snapshot/messages/controller-errors.ts reads what it says.
 */
import { ALL_LOGS, type MessageTable } from './rows.js';

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
    example:
      'failed calling webhook "validation.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter.karpenter.svc:8443/validate/karpenter.sh?timeout=10s": x509: certificate signed by unknown authority',
    printed: ['api-server', ...ALL_LOGS],
  },
  {
    re: /(?:updating|update|retrieving|failed to update) (?:on-demand|spot) pric[\s\S]*?(?:AccessDenied|UnauthorizedOperation|not authorized|RequestError|i\/o timeout|no such host)/i,
    signal: 'pricing-unavailable',
    example:
      'updating on-demand pricing, AccessDeniedException: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-lab/1733212800 is not authorized to perform: pricing:GetProducts',
    printed: ALL_LOGS,
  },
  {
    re: /WebIdentityErr: failed to retrieve credentials[\s\S]*?(?:send request failed|i\/o timeout|no such host|connection refused)/,
    signal: 'sts-unreachable',
    example:
      'WebIdentityErr: failed to retrieve credentials caused by: RequestError: send request failed caused by: Post "https://sts.eu-west-1.amazonaws.com/": dial tcp 52.94.0.12:443: i/o timeout',
    printed: ALL_LOGS,
  },
  {
    // The request to an AWS endpoint never got an answer: SDK v1 (≤ v1.0) "RequestError: send request failed\ncaused by:
    // Post \"https://ec2.<region>.amazonaws.com/\": dial tcp <ip>:443: i/o timeout"; SDK v2 "operation error SSM:
    // GetParameter, … request send failed, Post \"https://ssm.<region>.amazonaws.com/\": dial tcp: lookup … no such host".
    // The host comes first, the failure after it, in every generation.
    re: new RegExp(`${AWS_ENDPOINT}[^\n]*?${NETWORK_FAILURE}`),
    signal: 'aws-endpoint-unreachable',
    example: 'RequestError: send request failed caused by: Post "https://ec2.eu-north-1.amazonaws.com/": dial tcp 16.170.0.10:443: i/o timeout',
    printed: ALL_LOGS,
    carries: ['endpoint'],
  },
  // The interruption controller's SQS queue (settings.interruptionQueue): gone, or not readable by the controller role.
  {
    re: /NonExistentQueue|The specified queue does not exist/,
    signal: 'queue-missing',
    example: 'AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist for this wsdl version.',
    printed: ALL_LOGS,
  },
  {
    re: /not authorized to perform:? sqs:\w+/i,
    signal: 'queue-denied',
    example:
      'AccessDenied: User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-lab/1733212800 is not authorized to perform: sqs:ReceiveMessage on resource: arn:aws:sqs:eu-west-1:111122223333:Karpenter-lab',
    printed: ALL_LOGS,
  },
  // The AWS operator's start-up check (a dry-run EC2 call, then Fatal): the controller exits before any launch, whatever
  // error follows the comma (AccessDenied on its role, NoCredentialProviders, a timeout).
  {
    re: /Checking EC2 API connectivity, /,
    signal: 'startup-check-failed',
    example: 'Checking EC2 API connectivity, WebIdentityErr: failed to retrieve credentials',
    printed: ['console', 'json'],
  },
  {
    // Go's runtime, not Karpenter: a nil field dereferenced. Its trace (`stacktrace` of the record) says whose.
    re: /panic: runtime error: invalid memory address or nil pointer dereference/,
    signal: 'nil-pointer-panic',
    example: 'panic: runtime error: invalid memory address or nil pointer dereference',
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
    example: 'NodeClaim.karpenter.sh "default-x7k2p" is invalid: spec.requirements[3].key: Invalid value: "string": label domain "k8s.io" is restricted',
    printed: ['api-server', ...ALL_LOGS],
    carries: ['nodeclaim'],
  },
];
