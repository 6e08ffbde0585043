/**
 * `kubectl describe` output as people paste it when they paste only part of it: a NodeClaim's `Conditions:` with no
 * `Name:` line and no command above it (aws/karpenter-provider-aws#7738), a description cut off above `Status:` under
 * its command line, and the controller's own Pod or Deployment, whose image says which Karpenter runs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDescribe, sniffDescribe } from '../src/loaders/readers/describe.js';
import { describeShaped } from '../src/loaders/readers/describe-section.js';
import { fromGeneric, parseNested, type GMap } from '../src/loaders/readers/describe-generic.js';
import { splitText } from '../src/loaders/readers/ticket/blocks.js';
import { formatVersion } from '../src/kube/version.js';
import { FIXTURES, scan, scanRule } from './support/scan.js';

const CONDITIONS_ONLY = `${FIXTURES}tickets/corpus/describe-conditions-only.md`;
const CUT_NODECLASS = `${FIXTURES}tickets/describe-cut-ec2nodeclass.md`;
const CONTROLLER_POD = `${FIXTURES}tickets/describe-controller-pod.md`;
const CONTROLLER_DEPLOYMENT = `${FIXTURES}tickets/describe-controller-deployment.txt`;

/** Lines 6–32 of the ticket: the section as pasted, first line at the margin and its items at four. */
const section = readFileSync(CONDITIONS_ONLY, 'utf8').split('\n').slice(5, 32).join('\n');

describe('a describe section pasted without its header', () => {
  it('is describe output, not YAML, and is read on its own as a partial NodeClaim whose name is not shown', () => {
    expect(describeShaped(section.split('\n'))).toBe(true);
    expect(sniffDescribe(section)).toBe(true);
    const r = readDescribe({ text: section, source: 'paste.txt', line: 6 });
    expect(r.skipped).toEqual([]);
    expect(r.objects).toHaveLength(1);
    const { object, provenance } = r.objects[0]!;
    expect(object).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {},
      status: {
        conditions: [
          {
            type: 'Initialized',
            status: 'Unknown',
            reason: 'AwaitingReconciliation',
            message: 'object is awaiting reconciliation',
            lastTransitionTime: '2025-03-09T16:41:52Z',
          },
          {
            type: 'Registered',
            status: 'Unknown',
            reason: 'NodeNotFound',
            message: 'Node not registered with cluster',
            lastTransitionTime: '2025-03-09T16:41:52Z',
          },
          { type: 'Launched', status: 'True', reason: 'Launched', lastTransitionTime: '2025-03-09T16:41:55Z' },
          {
            type: 'Ready',
            status: 'Unknown',
            reason: 'ReconcilingDependents',
            message: 'Initialized=Unknown, Registered=Unknown',
            lastTransitionTime: '2025-03-09T16:41:52Z',
          },
        ],
        providerID: 'aws:///ca-central-1b/i-04d2c6e8a0b1f3579',
        imageID: 'ami-07e1c3a5b9d2f4086',
      },
    });
    // Only what was pasted is known: its name, labels and node name are unknown, not empty.
    expect(provenance.partial).toEqual({
      from: 'kubectl describe output pasted without its header',
      known: ['/status/conditions', '/status/providerID', '/status/imageID'],
    });
    expect(provenance.line).toBe(6);
    expect(provenance.fields).toMatchObject({ '/status/conditions/1': [13, 1], '/status/conditions/2': [19, 1] });
  });

  it('in a ticket: the NodeClaim is read, and no YAML error is reported for its repeated keys', async () => {
    const r = await scan([CONDITIONS_ONLY]);
    expect(r.load.objects.map((o) => `${o.object.kind} ${o.object.metadata.name ?? '(no name)'} @${o.provenance.line}`)).toEqual(['NodeClaim (no name) @6']);
    expect(r.load.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual(['1 prose (5 paragraphs), not objects or logs']);
  });

  it('inside a ```yaml fence it is still describe output, handed to the describe reader', () => {
    const blocks = splitText(`Here:\n\n\`\`\`yaml\n${section}\n\`\`\`\n`).blocks;
    expect(blocks.map((b) => `${b.kind} @${b.start}`)).toEqual(['other @4']);
  });

  it('without the time the commands ran, the registration wait is not evaluated, naming --now', async () => {
    const r = await scanRule('nodeclaim-not-registered', [CONDITIONS_ONLY]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      `NodeClaim (name not shown) (${CONDITIONS_ONLY}): launched and not registered since 2025-03-09T16:41:55Z, the latest time the input shows; ` +
        'the input does not say when it was taken, so whether that lasted past 15m is unknown: pass --now with the time the commands ran',
    ]);
  });

  it('with --now 8 minutes after the launch it is not yet a registration failure', async () => {
    const r = await scanRule('nodeclaim-not-registered', [CONDITIONS_ONLY], { now: '2025-03-09T16:50:00Z' });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([]);
  });

  it('with --now past the registration timeout it fires on the NodeClaim itself (its NodePool is not shown)', async () => {
    const r = await scanRule('nodeclaim-not-registered', [CONDITIONS_ONLY], { now: '2025-03-09T17:20:00Z' });
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: '' });
    expect(f.message).toBe(
      'NodeClaim (name not shown) launched at 2025-03-09T16:41:55Z and not registered for 38m (Registered=Unknown NodeNotFound: "Node not registered with cluster"). ' +
        'Karpenter deletes a NodeClaim whose Node has not joined 15m after launch, and pending pods make it launch another that fails the same way: ' +
        'instances are paid for and pods stay Pending.',
    );
    expect(f.evidence.map((e) => `${e.path} ${e.source}`)).toEqual([
      `/status/conditions/2 ${CONDITIONS_ONLY}:19`,
      `/status/conditions/1 ${CONDITIONS_ONLY}:13`,
      // The 15m timeout is v1's; the version the ticket's template states is cited for it.
      `null ${CONDITIONS_ONLY}:40`,
    ]);
    expect(f.fix).toContain('aws ec2 get-console-output --instance-id i-04d2c6e8a0b1f3579');
  });

  it("YAML whose keys are a manifest's is never taken for describe output", () => {
    expect(describeShaped(['status:', '  conditions:', '  - type: Ready', '    status: "True"', '    lastTransitionTime: x'])).toBe(false);
    expect(describeShaped(['nodeSelector:', '  Node Group: a', '  team: b', '  tier: c'])).toBe(false);
  });
});

describe('a description cut above Status:, under its command line', () => {
  it('is the EC2NodeClass the command names, with its status lists and Events; what the cut hides is unknown', async () => {
    const r = await scan([CUT_NODECLASS], { now: '2025-04-22T07:45:00Z' });
    const nodeClass = r.load.objects.find((o) => o.object.kind === 'EC2NodeClass')!;
    expect(nodeClass.object.metadata).toEqual({ name: 'batch' });
    expect(nodeClass.provenance.partial!.known).toEqual([
      '/metadata/name',
      '/status/conditions',
      '/status/securityGroups',
      '/status/amis',
      '/status/instanceProfile',
    ]);
    expect((nodeClass.object.status as Record<string, unknown>).securityGroups).toEqual([{ id: 'sg-06e2a4c8b0d1f3e57', name: 'eks-cluster-sg-batch-0427' }]);
    expect(r.snapshot.events().map((e) => `${e.reason} ${e.involved.kind}/${e.involved.name}`)).toEqual(['SubnetsReady EC2NodeClass/batch']);
    expect(r.load.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual(['1 prose (1 paragraph), not objects or logs']);
  });

  it('nodeclass-not-ready names the failing subnets condition, citing its lines, and not the unshown subnet list', async () => {
    const r = await scanRule('nodeclass-not-ready', [CUT_NODECLASS], { now: '2025-04-22T07:45:00Z' });
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['EC2NodeClass/batch']);
    const f = r.findings[0]!;
    expect(f.message).toMatch(
      /^EC2NodeClass batch has been Ready=False for 41m: SubnetsReady=False SubnetsNotFound "SubnetSelector did not match any Subnets"/,
    );
    expect(f.evidence.map((e) => `${e.path} ${e.source}`)).toEqual([`/status/conditions/0 ${CUT_NODECLASS}:16`, `/message ${CUT_NODECLASS}:35`]);
  });
});

describe('the controller described', () => {
  it('a described controller Pod is recognised as Karpenter, with its version, gates and settings', async () => {
    const r = await scan([CONTROLLER_POD]);
    const c = r.snapshot.controller;
    expect(formatVersion(c.version!)).toBe('1.4.0');
    expect(c.versionSource).toBe('image');
    expect(c.featureGates).toEqual({ ReservedCapacity: false, SpotToSpotConsolidation: true, NodeRepair: true });
    expect(c.interruptionQueue).toBe('shop-prod-karpenter');
    // Values describe prints as references are not the values: they are left out.
    expect(c.env).toEqual({
      KUBERNETES_MIN_VERSION: '1.19.0-0',
      FEATURE_GATES: 'ReservedCapacity=false,SpotToSpotConsolidation=true,NodeRepair=true',
      CLUSTER_NAME: 'shop-prod',
      INTERRUPTION_QUEUE: 'shop-prod-karpenter',
    });
    const pod = r.load.objects.find((o) => o.object.kind === 'Pod')!;
    expect(pod.object.metadata).toMatchObject({ name: 'karpenter-5f8b7d9c6-qk4tn', namespace: 'karpenter' });
    expect(pod.provenance.partial!.known).toContain('/spec/containers/0/image');
    expect(pod.provenance.partial!.known).not.toContain('/spec/affinity');
  });

  it('a described controller Deployment: its Pod Template containers, replicas and version', async () => {
    const r = await scan([CONTROLLER_DEPLOYMENT]);
    expect(r.load.skipped).toEqual([]);
    const d = r.load.objects[0]!;
    expect(d.object.kind).toBe('Deployment');
    expect(d.object.spec).toEqual({
      replicas: 2,
      template: {
        spec: {
          containers: [
            {
              name: 'controller',
              image: 'public.ecr.aws/karpenter/controller:1.2.3@sha256:aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff00112233',
              env: [
                { name: 'FEATURE_GATES', value: 'SpotToSpotConsolidation=false,NodeRepair=false' },
                { name: 'CLUSTER_NAME', value: 'edge-eu' },
              ],
              resources: { limits: { memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
            },
          ],
        },
      },
    });
    expect(d.object.status).toEqual({ availableReplicas: 1 });
    expect(formatVersion(r.snapshot.controller.version!)).toBe('1.2.3');
    // The chart's affinity is not in describe output: the rule that reads it says so rather than passing.
    const placed = await scanRule('karpenter-controller-on-karpenter-node', [CONTROLLER_DEPLOYMENT]);
    expect(placed.findings).toEqual([]);
    expect(placed.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      `Deployment kube-system/karpenter (${CONTROLLER_DEPLOYMENT}): \`kubectl describe\` output does not show spec.template.spec.affinity: add \`kubectl get deployment karpenter -n kube-system -o yaml\``,
    ]);
  });
});

describe('older generations described, several in one paste', () => {
  const FILE = `${FIXTURES}tickets/describe-v1beta1-nodepool-and-provisioner.txt`;

  it('a v1beta1 NodePool and a v1alpha5 Provisioner: their specs back in field names, the Events header pasted twice', async () => {
    const r = await scan([FILE], { now: '2024-06-01T12:00:00Z' });
    expect(r.load.skipped).toEqual([]);
    const [pool, provisioner] = r.load.objects.filter((o) => o.object.kind !== 'Event');
    expect(pool!.object).toMatchObject({
      apiVersion: 'karpenter.sh/v1beta1',
      spec: {
        disruption: { budgets: [{ nodes: '0' }], consolidationPolicy: 'WhenUnderutilized', expireAfter: 'Never' },
        template: {
          spec: { nodeClassRef: { name: 'default' }, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }] },
        },
      },
    });
    expect(provisioner!.object).toMatchObject({
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Provisioner',
      spec: { consolidation: { enabled: true }, providerRef: { name: 'legacy' }, ttlSecondsUntilExpired: 2592000 },
    });
    expect(r.snapshot.events().map((e) => `${e.reason} ${e.involved.kind}/${e.involved.name} x${e.count}`)).toEqual(['DisruptionBlocked NodePool/default x40']);
    expect(r.findings.map((f) => `${f.ruleId} ${f.object.kind}/${f.object.name}`)).toEqual([
      'deprecated-karpenter-api NodePool/default',
      'disruption-budget-blocks-all NodePool/default',
      'deprecated-karpenter-api Provisioner/legacy',
      'nodepool-without-limits NodePool/default',
      'nodepool-without-limits Provisioner/legacy',
    ]);
    expect(r.findings[1]!.message).toMatch(/budget 0 \(nodes: "0"\) has no schedule, so it is active forever/);
  });
});

describe("describe's generic rendering of lists", () => {
  it('items that set different keys are told apart by the sorted order of the keys', () => {
    const text = ['  Budgets:', '    Nodes:  10%', '    Duration:  8h', '    Nodes:     0', '    Schedule:  0 9 * * mon-fri'];
    const spec = fromGeneric(parseNested(text.map((t, i) => ({ text: t, line: i + 1 }))) as GMap);
    expect(spec).toEqual({ budgets: [{ nodes: '10%' }, { duration: '8h', nodes: '0', schedule: '0 9 * * mon-fri' }] });
  });
});

describe('a Node description with its top and middle left out', () => {
  const FILE = `${FIXTURES}tickets/describe-cut-node.md`;

  it('is the Node the command names: taints and conditions shown, labels unknown; its drain failures are stated', async () => {
    const r = await scan([FILE], { now: '2025-01-14T07:15:00Z' });
    expect(r.load.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    const node = r.load.objects.find((o) => o.object.kind === 'Node')!;
    expect(node.object.metadata).toEqual({ name: 'ip-10-4-18-77.eu-west-1.compute.internal' });
    expect(node.provenance.partial).toEqual({
      from: 'kubectl describe output pasted without its header',
      known: ['/metadata/name', '/spec/taints', '/spec/unschedulable', '/status/conditions'],
    });
    expect(node.object.spec).toEqual({
      taints: [
        { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
      ],
    });
    expect(r.findings.map((f) => `${f.ruleId} ${f.object.kind}/${f.object.name} ${f.recordsOnly?.basis ?? ''}`)).toEqual([
      'node-stuck-draining Node/ip-10-4-18-77.eu-west-1.compute.internal events',
    ]);
  });
});

describe('an AWSNodeTemplate under a prompt glyph of a shell theme', () => {
  it('is read (the `λ` prompt names it), with the zones of its subnets', async () => {
    const r = await scan([`${FIXTURES}tickets/describe-fancy-prompt-awsnodetemplate.md`]);
    expect(r.load.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    const template = r.load.objects[0]!;
    expect(template.object).toMatchObject({ apiVersion: 'karpenter.k8s.aws/v1alpha1', kind: 'AWSNodeTemplate', metadata: { name: 'standard' } });
    expect((template.object.status as Record<string, unknown>).subnets).toEqual([
      { id: 'subnet-0a9b8c7d6e5f40312', zone: 'us-east-1a' },
      { id: 'subnet-0b1c2d3e4f5a60718', zone: 'us-east-1b' },
    ]);
    expect(r.findings.map((f) => `${f.ruleId} ${f.object.kind}/${f.object.name}`)).toEqual(['deprecated-karpenter-api AWSNodeTemplate/standard']);
  });
});
