/**
 * Causes the controller states in its own words, in tickets that paste only its records, in each Karpenter generation's
 * wording (fixtures/tickets/causes/, rebuilt in our own values from the shapes of public issue threads). Each case
 * asserts the exact findings (rule, severity, object), what the finding says and the records it cites; causes no catalog
 * rule judges, or that stay below a rule's threshold, are asserted as the "stated in the input, not a finding" lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJson } from '../src/reporters/report.js';
import { FIXTURES, scan } from './support/scan.js';

/** The "confirm with" text as findings print it: each command in its own code span, its note outside. */
function spans(confirm: string): string {
  return confirm
    .split(/ and (?=(?:kubectl|helm|aws|eksctl) )/)
    .map((part) => {
      const m = /^((?:kubectl|helm|aws|eksctl) .*?)((?: \(.*| for .*)?)$/.exec(part);
      return m ? `\`${m[1]}\`${m[2]}` : part;
    })
    .join(' and ');
}

const ticket = (name: string) => join(FIXTURES, 'tickets', 'causes', name);
/** `file:line` of every line holding `text` (a record repeated in a paste is cited on each line). */
const at = (name: string, text: string) =>
  readFileSync(ticket(name), 'utf8')
    .split('\n')
    .flatMap((l, i) => (l.includes(text) ? [`${ticket(name)}:${i + 1}`] : []));
const ref = (apiVersion: string, kind: string, name: string, namespace: string | null = null) => ({ apiVersion, kind, namespace, name });
const provisioner = (name: string) => ref('karpenter.sh/v1alpha5', 'Provisioner', name);
const nodePool = (name: string) => ref('karpenter.sh/v1', 'NodePool', name);

const SUBNETS_FIX =
  'The subnet selector matches no subnet: tag the node subnets (e.g. karpenter.sh/discovery: <cluster>) or fix the id terms; check with aws ec2 describe-subnets --filters Name=tag:<key>,Values=<value>.';
const SG_FIX =
  'The security-group selector matches nothing: tag the cluster/node security group or reference it by id; check with aws ec2 describe-security-groups --filters Name=tag:<key>,Values=<value>.';
const AMI_FIX =
  'No AMI resolves: use an alias that exists (e.g. al2023@latest, or a published version for your Kubernetes version), fix the id/name/tags terms, and give the controller ssm:GetParameter for aliases.';
const TAIL = 'While it stays so, every launch through it fails and pods that need it stay Pending.';
const PROVISIONER_CONFIRM = (name: string) =>
  `kubectl get provisioner ${name} -o yaml (spec.provider or spec.providerRef) and kubectl get awsnodetemplates -o yaml`;
const POOL_CONFIRM = (name: string) => `kubectl get nodepool ${name} -o yaml and kubectl get ec2nodeclasses -o yaml (status.conditions)`;

describe('a node class that resolves to nothing, in every generation that logs it: nodeclass-not-ready, from logs only', () => {
  const cases = [
    {
      file: 'subnets-v0.5-console.txt',
      generation: 'v0.5 console lines, Provisioner named by controller-runtime',
      object: provisioner('batch'),
      said: 'its subnet selector matches no subnet, as the controller logged 2 times between 2022-01-19T14:02:11.305Z and 2022-01-19T14:03:11.322Z: "Reconciler error: no subnets matched selector map[karpenter.sh/discovery:kestrel-stage]"',
      subject: 'The node class of Provisioner batch',
      confirm: PROVISIONER_CONFIRM('batch'),
      fix: SUBNETS_FIX,
      cited: 'no subnets matched selector',
    },
    {
      file: 'security-groups-v0.27.txt',
      generation: 'v0.27 console lines behind a kubetail-style pod prefix',
      object: provisioner('default'),
      said: 'its security-group selector matches no security group, as the controller logged 2 times between 2023-05-30T11:47:09.660Z and 2023-05-30T11:47:41.018Z: "launching machine, creating cloud provider instance, getting launch template configs, getting security groups, no security groups exist given constraints"',
      subject: 'The node class of Provisioner default',
      confirm: PROVISIONER_CONFIRM('default'),
      fix: SG_FIX,
      cited: 'no security groups exist',
    },
    {
      file: 'ssm-parameter-v0.28.txt',
      generation: 'v0.28 console line: the AMI family has no SSM parameter in the region',
      object: provisioner('gpu'),
      said: 'no AMI resolves for it, as the controller logged once at 2023-07-04T03:18:52.441Z: "launching machine, creating cloud provider instance, creating instance, getting launch template configs, getting launch templates, getting ssm parameter "/aws/service/bottlerocket/aws-k8s-1.27-nvidia/arm64/latest/image_id", ParameterNotFound: "',
      subject: 'The node class of Provisioner gpu',
      confirm: PROVISIONER_CONFIRM('gpu'),
      fix: AMI_FIX,
      cited: 'ParameterNotFound',
    },
    {
      file: 'no-amis-v0.35.log',
      generation: 'v0.35 JSON, launch path',
      object: nodePool('windows'),
      said: 'no AMI resolves for it, as the controller logged 2 times between 2024-04-22T17:05:31.902Z and 2024-04-22T17:06:02.113Z: "launching nodeclaim, creating instance, getting launch template configs, getting launch templates, no amis exist given constraints"',
      subject: 'The node class of NodePool windows',
      confirm: POOL_CONFIRM('windows'),
      fix: AMI_FIX,
      cited: 'no amis exist',
    },
    {
      file: 'ami-arch-v0.32.log',
      generation: 'v0.32 JSON, launch path: AMIs of another architecture',
      object: nodePool('graviton'),
      said: 'its AMIs fit none of the instance types the pool allows (their architecture differs), as the controller logged once at 2023-11-06T15:40:22.517Z: "launching nodeclaim, creating instance, getting launch template configs, getting launch templates, no instance types satisfy requirements of amis ami-0f1e2d3c4b5a69788"',
      subject: 'The node class of NodePool graviton',
      confirm: POOL_CONFIRM('graviton'),
      fix: "Make the NodePool's kubernetes.io/arch requirement and the AMIs the node class selects agree (select AMIs of each architecture the pool allows, or restrict the pool to theirs).",
      cited: 'requirements of amis',
    },
    {
      file: 'ami-alias-v1.1.md',
      generation: 'v1.1 JSON in a fenced issue body, EC2NodeClass status reconciler',
      object: ref('karpenter.k8s.aws/v1', 'EC2NodeClass', 'graviton'),
      said: 'no AMI resolves for it, as the controller logged 2 times between 2025-01-14T09:21:40.118Z and 2025-01-14T09:23:40.205Z: "Reconciler error: getting amis, getting AMI queries, failed to discover AMIs for alias "al2023@v20240917""',
      subject: 'EC2NodeClass graviton',
      confirm: 'kubectl get ec2nodeclass graviton -o yaml (status)',
      fix: AMI_FIX,
      cited: 'failed to discover AMIs',
    },
    {
      file: 'subnets-v1-listing.log',
      generation: 'v1.x JSON, instance-type listing of a NodePool',
      object: nodePool('ingest'),
      said: 'its subnet selector matches no subnet, as the controller logged 3 times between 2026-02-09T06:44:18.571Z and 2026-02-09T06:46:18.633Z: "failed listing instance types: no subnets found"',
      subject: 'The node class of NodePool ingest',
      confirm: POOL_CONFIRM('ingest'),
      fix: SUBNETS_FIX,
      cited: 'no subnets found',
    },
  ];
  for (const c of cases) {
    it(`${c.generation}: on ${c.object.kind} ${c.object.name}`, async () => {
      const r = await scan([ticket(c.file)]);
      expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['nodeclass-not-ready', 'warning', c.object]]);
      const f = r.findings[0]!;
      expect(f.recordsOnly).toEqual({ basis: 'logs', confirmWith: c.confirm });
      expect(f.message).toBe(`${c.subject} cannot be used: ${c.said}. ${TAIL} (from logs only: confirm with ${spans(c.confirm)})`);
      expect(f.fix).toBe(c.fix);
      // The last two records are cited, each at its own line.
      expect(f.evidence.map((e) => [e.source, e.note])).toEqual(
        at(c.file, c.cited)
          .slice(-2)
          .map((s) => [s, 'stated by the controller']),
      );
    });
  }

  it('v0.7: with the Provisioner itself pasted, its records still judge its node class (the rule reads only EC2NodeClass conditions)', async () => {
    const file = 'subnets-with-provisioner-v0.7.md';
    const r = await scan([ticket(file)]);
    // The consolidation policy alone, with no nodes pasted, is an info (rules.md §1), after the warning.
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      ['deprecated-karpenter-api', 'warning', provisioner('default')],
      ['nodeclass-not-ready', 'warning', provisioner('default')],
      ['consolidation-disabled-for-underused-nodes', 'info', provisioner('default')],
    ]);
    expect(r.findings[1]!.message).toContain(
      'The node class of Provisioner default cannot be used: its subnet selector matches no subnet, as the controller logged once at 2022-03-30T12:20:41.118Z',
    );
    expect(r.findings[1]!.evidence.map((e) => e.source)).toEqual(at(file, 'no subnets matched'));
  });

  it('near miss: the same record, with the EC2NodeClass pasted whole and Ready since: judged from the object, silent', async () => {
    const r = await scan([ticket('ami-alias-fixed-v1.1.md')]);
    expect(r.report.snapshot.counts).toEqual({ EC2NodeClass: 1 });
    expect(r.findings).toEqual([]);
  });

  it('near miss: a node class error that is an authorisation failure is the launch refusal, named once', async () => {
    const r = await scan([ticket('validation-denied-v1.3.log')]);
    expect(r.findings.map((f) => [f.ruleId, f.object])).toEqual([['launch-refused-by-cloud-provider', ref('karpenter.k8s.aws/v1', 'EC2NodeClass', 'batch')]]);
    expect(r.findings[0]!.fix).toBe(
      'Give the Karpenter controller role eks:DescribeCluster: attach the reference controller policy of this release (tag conditions included). An encoded message decodes with aws sts decode-authorization-message --encoded-message <message>.',
    );
  });
});

describe('launch failures whose wording only a code tells', () => {
  it('v0.5: sts:AssumeRoleWithWebIdentity denied is a refused launch of the Provisioner the record names, with the trust-policy fix', async () => {
    const file = 'sts-denied-v0.5.md';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['launch-refused-by-cloud-provider', 'warning', provisioner('reports')]]);
    const f = r.findings[0]!;
    expect(f.message).toContain('failed once at 2022-04-20T07:12:55.084Z: the controller cannot assume its IAM role (sts:AssumeRoleWithWebIdentity is denied)');
    expect(f.fix).toBe(
      "The controller's service account cannot assume its role: check the role ARN in the eks.amazonaws.com/role-arn annotation of the karpenter service account, and that the role's trust policy names the cluster's OIDC provider with sub system:serviceaccount:<namespace>:<service account> (or, with EKS Pod Identity, that an association exists for it).",
    );
    expect(f.evidence.map((e) => e.source)).toEqual(at(file, 'AssumeRoleWithWebIdentity'));
  });

  it('v0.35: a parameter EC2 rejects on every retry is a refused launch, the fix quoting what EC2 said', async () => {
    const file = 'invalid-parameter-v0.35.log';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['launch-refused-by-cloud-provider', 'warning', nodePool('mixed')]]);
    expect(r.findings[0]!.message).toContain(
      'NodePool mixed failed 2 times between 2024-03-13T02:14:51.338Z and 2024-03-13T02:16:03.910Z (NodeClaims mixed-7kx2p, mixed-p9q4w): EC2 rejects a parameter of the launch request (InvalidParameterValue)',
    );
    expect(r.findings[0]!.fix).toBe(
      'EC2 names the parameter it refuses ("You cannot specify tags for Spot instances requests if there are no Spot instances requests being created by the request."): ' +
        "fix it where Karpenter takes it from, usually the EC2NodeClass (blockDeviceMappings, metadataOptions, tags, instanceProfile) or the NodePool's requirements; " +
        "if it names nothing you set, it is EC2's answer to that one request and a retry may pass.",
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'InvalidParameterValue'));
  });

  it('v0.7: the fleet answering Unsupported on every retry is capacity the Provisioner cannot get', async () => {
    const file = 'unsupported-v0.7.txt';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['insufficient-capacity-all-offerings', 'warning', provisioner('arm-builds')]]);
    expect(r.findings[0]!.message).toContain(
      'Provisioner arm-builds: launches failed with insufficient capacity 2 times between 2022-03-28T19:03:20.551Z and 2022-03-28T19:04:31.017Z and no later successful launch of the pool is in the input — EC2 does not offer the requested instance type in that zone (Unsupported).',
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'Unsupported:'));
  });
});

describe('"Could not schedule pod, launching machine, …": the scheduler passing on a launch error (docs/karpenter-behaviour.md §8.3)', () => {
  it('v0.27: UnauthorizedOperation behind the scheduling lead is a refused launch, not a pod that fits no instance type', async () => {
    const file = 'schedule-carries-launch-v0.27.txt';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => f.ruleId)).toEqual(['launch-refused-by-cloud-provider']);
    expect(r.findings[0]!.message).toContain(
      'launches failed 2 times between 2023-04-18T12:31:07.902Z and 2023-04-18T12:31:19.114Z: the controller is not authorised to launch',
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'UnauthorizedOperation'));
    expect(r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === 'no-instance-type-fits')).toEqual([]);
  });
});

describe('a record quoted bare in the title above the whole record: one failure, of the pool the whole record names', () => {
  it('v0.16 "Provisioning failed, launching node, …" as the heading and in the log: one refused launch of Provisioner apps', async () => {
    const file = 'title-and-log-v0.16.md';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['launch-refused-by-cloud-provider', 'warning', provisioner('apps')]]);
    expect(r.findings[0]!.message).toContain('Provisioner apps failed once at 2022-09-20T14:07:52.018Z: the controller is not authorised to launch');
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual([`${ticket(file)}:13`]);
  });
});

describe('a ≤ v0.31 launch error quoted alone: named and confirmed in its own generation', () => {
  it('v0.27 "launching machine, …" without time or fields: a Provisioner, and kubectl get provisioners to confirm', async () => {
    const file = 'bare-launch-line-v0.27.md';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['launch-refused-by-cloud-provider', 'warning', provisioner('(name not shown)')]]);
    expect(r.findings[0]!.message).toContain('From logs only: kubectl get provisioners -o yaml and kubectl get events -A -o yaml would confirm it.');
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'UnauthorizedOperation'));
  });
});

describe('scheduling refused for a static mismatch, from the records alone: pending-pod-no-nodepool-fits', () => {
  it('v0.25 console: the Provisioner is called a Provisioner, the pod is the one the record names', async () => {
    const file = 'misfit-taint-v0.25.txt';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.object])).toEqual([['pending-pod-no-nodepool-fits', ref('v1', 'Pod', 'detector-6b7c8d9f4-q2w3e', 'vision')]]);
    const confirm = 'kubectl get nodepools -o yaml and kubectl get pod detector-6b7c8d9f4-q2w3e -n vision -o yaml';
    expect(r.findings[0]!.message).toBe(
      'Pod vision/detector-6b7c8d9f4-q2w3e fits no NodePool: Provisioner default: did not tolerate nvidia.com/gpu=true:NoSchedule ' +
        `(Karpenter said so 2 times, last at 2023-02-14T10:31:18.107Z). (from logs only: confirm with ${spans(confirm)})`,
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'did not tolerate'));
  });

  it('v1.6 JSON: each pool names itself as a structured value', async () => {
    const r = await scan([ticket('misfit-v1.6.log')]);
    expect(r.findings.map((f) => [f.ruleId, f.object])).toEqual([['pending-pod-no-nodepool-fits', ref('v1', 'Pod', 'indexer-0', 'search')]]);
    expect(r.findings[0]!.message).toContain(
      'fits no NodePool: NodePool search: did not tolerate taint (taint=workload=search:NoSchedule) (NodePool=search); NodePool general: incompatible requirements',
    );
  });
});

describe('NodePools and CRDs the controller reports about', () => {
  it('v1.2 "ignoring nodepool, not ready": nodepool-missing-nodeclass on the pool, from logs only', async () => {
    const file = 'ignoring-pool-v1.2.log';
    const r = await scan([ticket(file)]);
    const confirm = 'kubectl get nodepool workers -o yaml (status.conditions) and kubectl get ec2nodeclasses -o yaml';
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object, f.recordsOnly])).toEqual([
      ['nodepool-missing-nodeclass', 'warning', nodePool('workers'), { basis: 'logs', confirmWith: confirm }],
    ]);
    expect(r.findings[0]!.message).toBe(
      'Karpenter ignores NodePool workers because it is not Ready, and said so 2 times between 2025-03-03T12:10:12.415Z and 2025-03-03T12:10:22.420Z: ' +
        'a NodePool is Ready only when the node class its nodeClassRef names exists and is Ready, so its node class is missing, being deleted or not Ready. ' +
        `The pool launches nothing meanwhile. (from logs only: confirm with ${spans(confirm)})`,
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'ignoring nodepool'));
  });

  it('v0.31 node state reconciler: an AWSNodeTemplate that does not exist, named by itself (no Provisioner in the record)', async () => {
    const file = 'template-missing-v0.31.txt';
    const r = await scan([ticket(file)]);
    const confirm = 'kubectl get provisioners,awsnodetemplates -o yaml';
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object, f.recordsOnly])).toEqual([
      ['nodepool-missing-nodeclass', 'warning', ref('karpenter.k8s.aws/v1alpha1', 'AWSNodeTemplate', 'bottlerocket'), { basis: 'logs', confirmWith: confirm }],
    ]);
    expect(r.findings[0]!.message).toBe(
      "A Provisioner's providerRef names AWSNodeTemplate bottlerocket, which does not exist: Karpenter said so 2 times between 2023-10-09T11:04:17.220Z and 2023-10-09T11:04:17.221Z. " +
        `Nodes launched through it cannot be resolved and no new node is launched for it. (from logs only: confirm with ${spans(confirm)})`,
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'getting providerRef'));
  });

  it('v1.5 eviction queue: a pod selected by more than one PDB, on the pod, from logs only', async () => {
    const file = 'multiple-pdbs-v1.5.md';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      ['pdb-blocks-eviction', 'warning', ref('v1', 'Pod', 'ledger-api-5d8f7c9b6-w4x8z', 'finance')],
    ]);
    expect(r.findings[0]!.message).toContain(
      'Pod finance/ledger-api-5d8f7c9b6-w4x8z is selected by more than one PodDisruptionBudget, which the eviction API refuses: Karpenter failed to evict it 2 times between 2025-06-02T08:11:30.402Z and 2025-06-02T08:11:40.417Z',
    );
    expect(r.findings[0]!.fix).toBe(
      "Leave one PodDisruptionBudget selecting pod finance/ledger-api-5d8f7c9b6-w4x8z: compare the selectors of kubectl get pdb -n finance -o yaml with the pod's labels, and merge or narrow the overlapping ones.",
    );
    // Pretty-printed records are cited at their first line, the `{` that opens each.
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual([4, 20].map((n) => `${ticket(file)}:${n}`));
  });

  it('v1.0: one conversion webhook failure, no CRDs in the input: named as a warning that says it was seen once', async () => {
    const file = 'conversion-once-v1.0.md';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      // The controller is not in the input; the record names the NodePool CRD, so the finding is on that.
      ['karpenter-api-version-mismatch', 'warning', ref('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'nodepools.karpenter.sh', null)],
    ]);
    expect(r.findings[0]!.message).toContain(
      'the CRD conversion webhook fails (NodePool). Until they match the controller cannot read or write its objects: nothing is provisioned or disrupted. It was stated once: a controller pod restarting during an upgrade says so briefly, a mismatch says it on every reconcile.',
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(file, 'conversion webhook for'));
  });
});

describe('an interruption queue the controller cannot read: spot-without-interruption-queue on the controller, from logs only', () => {
  const CONFIRM =
    'the controller Deployment (kubectl get deployment -n <namespace> karpenter -o yaml: INTERRUPTION_QUEUE) and aws sqs get-queue-url --queue-name <name>';
  const cases = [
    {
      file: 'queue-missing-v0.19.txt',
      generation: 'v0.19 console lines',
      seen: '2 times between 2022-12-14T09:41:27.902Z and 2022-12-14T09:41:58.113Z',
      text: 'getting messages from queue, discovering queue url, fetching queue url, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist for this wsdl version.',
      cited: 'NonExistentQueue',
    },
    {
      file: 'queue-missing-v1.6.md',
      generation: 'v1.6 JSON pretty-printed in a fence',
      seen: 'once at 2025-09-15T04:12:40.331Z',
      text: 'Reconciler error: creating sqs provider, operation error SQS: GetQueueUrl, https response error StatusCode: 400, RequestID: 7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b, AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.',
      cited: '{', // a pretty-printed record is cited at its first line
    },
  ];
  for (const c of cases) {
    it(c.generation, async () => {
      const r = await scan([ticket(c.file)]);
      expect(r.findings.map((f) => [f.ruleId, f.severity, f.object, f.recordsOnly])).toEqual([
        ['spot-without-interruption-queue', 'warning', ref('apps/v1', 'Deployment', 'karpenter', 'kube-system'), { basis: 'logs', confirmWith: CONFIRM }],
      ]);
      expect(r.findings[0]!.message).toBe(
        `The interruption queue the controller is configured with does not exist: it logged so ${c.seen} ("${c.text}"). ` +
          'Interruption handling is off: spot interruptions, scheduled maintenance and instance state changes are not drained ahead of time. ' +
          `(from logs only: confirm with ${spans(CONFIRM)})`,
      );
      expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual(at(c.file, c.cited));
    });
  }
});

describe('stated in the input, not a finding: shown apart, never dropped', () => {
  const cases = [
    {
      file: 'webhook-x509-v0.19.txt',
      rule: 'karpenter-api-version-mismatch',
      start:
        "the controller states Karpenter's admission webhook fails (its certificate is not trusted, its Service has no ready endpoint, or a webhook configuration left by an older chart calls a controller that no longer serves it) (2 times, last at ",
      cited: 'x509',
      end: 'kubectl get secret -n <namespace> karpenter-cert, and the controller pods are Ready.',
    },
    {
      file: 'pricing-denied-v0.15.txt',
      rule: 'launch-refused-by-cloud-provider',
      start: 'the controller states the pricing API refuses or cannot be reached (once, last at ',
      cited: 'AccessDeniedException',
      end: 'Allow the controller pricing:GetProducts and ec2:DescribeSpotPriceHistory (or, in a VPC without internet, set settings.isolatedVPC: true).',
    },
    {
      file: 'sts-timeout-v0.16.txt',
      rule: 'launch-refused-by-cloud-provider',
      start: 'the controller states it cannot reach STS to get its AWS credentials (once, last at ',
      cited: 'i/o timeout',
      end: 'Set AWS_STS_REGIONAL_ENDPOINTS=regional on the controller when only the regional endpoint is reachable.',
    },
    {
      // The start-up check exits the controller: a restart loop, not a refused launch, whatever error follows it.
      file: 'startup-check-no-credentials-v0.27.txt',
      rule: 'launch-refused-by-cloud-provider',
      start: 'the controller states it exits at start because its check of the EC2 API fails, so it restarts in a loop and launches nothing (once, last at ',
      cited: 'NoCredentialProviders',
      end: 'UnauthorizedOperation: the role lacks the EC2 read permissions of the reference controller policy.',
    },
  ];
  for (const c of cases) {
    it(`${c.file}: a ${c.rule} line, no finding`, async () => {
      const r = await scan([ticket(c.file)]);
      expect(r.findings).toEqual([]);
      const stated = r.run.notEvaluatedFor.filter((n) => n.stated);
      expect(stated.map((n) => n.ruleId)).toEqual([c.rule]);
      expect(stated[0]!.reason.startsWith(`${c.start}${at(c.file, c.cited).pop()}: "`)).toBe(true);
      expect(stated[0]!.reason.endsWith(c.end)).toBe(true);
      // In JSON the entry says it is a stated cause, not a rule that could not run.
      const json = JSON.parse(renderJson(r.report)) as { notEvaluated: Array<{ reason: string; stated?: true }> };
      expect(json.notEvaluated.find((n) => n.reason === stated[0]!.reason)).toEqual({ ruleId: c.rule, reason: stated[0]!.reason, stated: true });
      expect(json.notEvaluated.filter((n) => n.stated)).toHaveLength(1);
    });
  }

  // A private cluster without the VPC endpoint (or a proxy): the endpoint named, in each log generation and SDK wording.
  const endpoints = [
    { file: 'ssm-endpoint-no-host-v1.2.md', host: 'ssm.ap-southeast-1.amazonaws.com', failure: 'no such host', service: 'com.amazonaws.ap-southeast-1.ssm' },
    { file: 'sqs-endpoint-timeout-v0.36.log', host: 'sqs.us-east-2.amazonaws.com', failure: 'i/o timeout', service: 'com.amazonaws.us-east-2.sqs' },
  ];
  for (const c of endpoints) {
    it(`${c.file}: names ${c.host} as out of reach and the VPC endpoint that reaches it`, async () => {
      const r = await scan([ticket(c.file)]);
      expect(r.findings).toEqual([]);
      const stated = r.run.notEvaluatedFor.filter((n) => n.stated);
      expect(stated.map((n) => n.ruleId)).toEqual(['launch-refused-by-cloud-provider']);
      expect(stated[0]!.reason).toContain(`the controller states it cannot reach ${c.host} (${c.failure}):`);
      expect(stated[0]!.reason).toContain(`create the interface VPC endpoint ${c.service} in the cluster's VPC`);
    });
  }

  it('v0.29 console: a DescribeInstanceTypes timeout to ec2 is named beside the scheduling failure it interrupts', async () => {
    const r = await scan([ticket('ec2-endpoint-timeout-v0.29.txt')]);
    const endpoint = r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === 'launch-refused-by-cloud-provider');
    expect(endpoint.map((n) => n.reason.slice(0, 102))).toEqual([
      'the controller states it cannot reach ec2.eu-north-1.amazonaws.com (i/o timeout): the EC2 API is out o',
    ]);
    expect(endpoint[0]!.reason).toContain('(2 times, last at');
  });

  it('v1.1 controller-runtime: a pod that waits because ec2 is out of reach is that consequence, never a pod no instance type fits', async () => {
    const r = await scan([ticket('ec2-endpoint-no-host-v1.1.log')]);
    // Three failures over 6m would make a finding of a scheduling constraint; the cause is the endpoint, stated once.
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated);
    expect(stated.map((n) => n.ruleId).sort()).toEqual(['launch-refused-by-cloud-provider', 'no-instance-type-fits']);
    const pod = stated.find((n) => n.ruleId === 'no-instance-type-fits')!.reason;
    expect(pod).toMatch(/^Pod data\/etl-runner-5b7d9f8c6-vx4pj waits because the controller fails before it can judge any pool for it \(3 times: /);
    expect(pod).toContain('a consequence of the cause launch-refused-by-cloud-provider states, not a scheduling constraint');
    expect(stated.find((n) => n.ruleId === 'launch-refused-by-cloud-provider')!.reason).toContain('cannot reach ec2.us-west-2.amazonaws.com (no such host)');
  });

  it('near miss: a timeout to the cluster API server is no AWS endpoint, and says nothing of one', async () => {
    const r = await scan([ticket('unrelated-timeout-v1.4.log')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated)).toEqual([]);
  });

  it('v1.2 "Node is nominated for a pending pod" without the Nodes and Pods: named, with what would judge it', async () => {
    const r = await scan([ticket('nominated-events-v1.2.txt')], { now: '2026-03-01T00:00:00Z' });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated)).toEqual([
      {
        ruleId: 'node-nominated-without-pending-pods',
        reason:
          'Karpenter says node ip-10-31-8-77.eu-west-1.compute.internal is nominated for a pending pod (once at 2026-02-28T23:59:19Z), so it is not consolidated or drifted meanwhile. ' +
          'Whether a pod is really coming needs the Nodes and Pods: add `kubectl get nodes -o yaml` and `kubectl get pods -A -o yaml`.',
        stated: true,
      },
    ]);
  });

  it('one insufficient-capacity event: below the threshold, listed with what EC2 named', async () => {
    const r = await scan([ticket('ice-once-event.txt')], { now: '2026-03-01T00:00:00Z' });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated)).toEqual([
      {
        ruleId: 'insufficient-capacity-all-offerings',
        reason:
          'insufficient capacity for NodePool render-spot once at 2026-02-28T23:58:00Z: EC2 has no capacity for the requested instance types (InsufficientInstanceCapacity) ' +
          '(EC2 named g6.2xlarge in eu-west-1c). Karpenter retries on the other offerings the pool allows. Not a finding: seen 1 of the 2 times that make one; ' +
          'kubectl get events -A --field-selector reason=InsufficientCapacityError would show whether it repeats with no launch in between.',
        stated: true,
      },
    ]);
  });
});

describe('≤ v0.31 scheduling failures with what the same pass left out (docs/karpenter-behaviour.md §8.3)', () => {
  it('v0.6 "Failed to compute packing, pod(s) [ns/p] …": the listed pod, the record\'s Provisioner and the overhead exclusions', async () => {
    const r = await scan([ticket('packing-overhead-v0.6.txt')], { now: '2022-02-22T09:15:00Z' });
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated);
    expect(stated.map((n) => n.ruleId)).toEqual(['no-instance-type-fits']);
    expect(stated[0]!.reason).toBe(
      'Pod media/render-worker-0: Karpenter could not schedule it once at 2022-02-22T09:14:02.140Z — Provisioner render: Failed to compute packing, ' +
        'pod(s) [media/render-worker-0] did not fit in instance type option(s) [c5.xlarge c5a.xlarge]. Just before, the controller left out c5.large, ' +
        'c5a.large: not enough resources for kubelet and system overhead (DEBUG). Not a finding yet: without the Pod, a failure is reported once it ' +
        'repeats 3 times or lasts 5m; kubectl get pod -n media render-worker-0 -o yaml would show whether it still waits.',
    );
  });

  it('v0.16 "N out of M instance types were excluded because they would breach provisioner limits" beside "Could not schedule pod"', async () => {
    const r = await scan([ticket('limits-excluded-v0.16.txt')], { now: '2022-09-14T03:21:00Z' });
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated);
    expect(stated.map((n) => n.ruleId)).toEqual(['no-instance-type-fits']);
    expect(stated[0]!.reason).toContain(
      'Pod batch/etl-nightly-28771520-5kq7d: Karpenter could not schedule it once at 2022-09-14T03:20:41.560Z — Provisioner nightly: ',
    );
    expect(stated[0]!.reason).toContain(
      "Just before, the controller excluded 131 of 498 instance types because they would breach the Provisioner's limits (DEBUG).",
    );
  });
});

describe('a pod whose zone requirements have no zone in common: "topology.kubernetes.io/zone DoesNotExist" (docs/karpenter-behaviour.md §8.3)', () => {
  const ZONES_FIX = "The pod's zone requirements have no zone in common (Karpenter writes the empty set as topology.kubernetes.io/zone DoesNotExist)";

  it('v0.31 "incompatible requirements, key topology.kubernetes.io/zone, … DoesNotExist not in …", 3 times: the zones, not a selector mismatch', async () => {
    const file = 'zones-disjoint-v0.31.txt';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([['no-instance-type-fits', 'warning', ref('v1', 'Pod', 'kafka-2', 'streaming')]]);
    expect(r.findings[0]!.fix.startsWith(ZONES_FIX)).toBe(true);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated)).toEqual([]);
  });

  it('v0.28 "no instance type satisfied … zone DoesNotExist" beside a status-only Pod: Pending since its PodScheduled=False, not since the record', async () => {
    const file = 'status-json-unschedulable-v0.28.md';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      ['no-instance-type-fits', 'warning', ref('v1', 'Pod', 'nightly-export-0', 'reports')],
    ]);
    expect(r.findings[0]!.fix.startsWith(ZONES_FIX)).toBe(true);
    expect(r.findings[0]!.evidence.map((e) => e.note)).toContain('Pending for at least 2h28m');
  });
});

describe('an API mismatch over v1alpha5 kinds: the CRDs of that generation are the ones to compare', () => {
  it('v0.29 reflector "Failed to watch *v1alpha5.Machine … (get machines.karpenter.sh)", twice: compare and fix the v1alpha5 CRDs', async () => {
    const file = 'machines-crd-missing-v0.29.txt';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      ['karpenter-api-version-mismatch', 'warning', ref('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'machines.karpenter.sh')],
    ]);
    const fix = r.findings[0]!.fix;
    expect(fix).toContain('kubectl get crd provisioners.karpenter.sh machines.karpenter.sh awsnodetemplates.karpenter.k8s.aws -o custom-columns=');
    expect(fix).toContain('Machines exist from v0.28, so a v0.28+ controller needs the machines.karpenter.sh CRD of its release');
    expect(fix).not.toContain('v1beta1');
  });
});
