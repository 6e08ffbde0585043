import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, splitSource, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'nodeclaim-not-registered';
type Scan = Awaited<ReturnType<typeof scanRule>>;

function logLine(source: string): string {
  const { file, line } = splitSource(source);
  return readFileSync(file, 'utf8').split('\n')[line - 1]!;
}

describe(`${RULE} — fires: registration timeout loop on NodePool default (v1.6.1, "registration ttl")`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('reports one error, on NodePool default (system is healthy)', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.referenceTime).toBe('2025-09-02T11:23:40.000Z');
    expect(r.report.snapshot.karpenterVersion).toBe('1.6.1');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'default' });
    expect(f.related).toEqual([{ kind: 'NodeClaim', name: 'default-p9x2k' }]);
  });

  it('names the deleted NodeClaims, when, the pool condition and the claim still waiting', () => {
    expect(f.message).toContain('NodePool default: instances launch but never join the cluster');
    expect(f.message).toContain(
      'the controller deleted 2 NodeClaims (default-b7r2c, default-f4n8w) on registration timeout between 2025-09-02T10:53:39.212Z and 2025-09-02T11:09:03.655Z',
    );
    expect(f.message).toContain('NodeRegistrationHealthy=False (RegistrationFailed: Failed to register node)');
    expect(f.message).toContain('default-p9x2k has been waiting 14m for a Node');
  });

  it('cites the timeout log lines, the pool condition and its transition event where they are', () => {
    const logs = f.evidence.filter((e) => e.source.includes('logs.txt'));
    expect(logs).toHaveLength(2);
    for (const l of logs) expect(logLine(l.source)).toContain('"message":"terminating due to registration ttl"');
    const [cond] = evidenceOf(f, 'NodePool', '/status/conditions/1');
    expect(cond?.value).toMatchObject({ type: 'NodeRegistrationHealthy', status: 'False', reason: 'RegistrationFailed' });
    expectSourceIs(cond!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(cond!)).toEqual(cond!.value);
    const [ev] = evidenceOf(f, 'Event');
    expect(String(ev?.value)).toContain('Status: True -> False, Reason: RegistrationFailed');
    expectSourceIs(ev!, join(dir, 'default', 'events.yaml'));
    const [waiting] = evidenceOf(f, 'NodeClaim', '/status/conditions/1');
    expect(waiting?.value).toMatchObject({ type: 'Registered', status: 'Unknown', reason: 'NodeNotFound' });
  });

  it('the fix names the instance to inspect, the cluster and the EC2NodeClass', () => {
    expect(f.fix).toContain('aws ec2 get-console-output --instance-id i-0a8c2e6f4b1d97355 --latest');
    expect(f.fix).toContain('aws eks list-access-entries --cluster-name payments-syd');
    expect(f.fix).toContain('kubectl get ec2nodeclass default -o yaml');
  });

  it('thresholds: after=10m counts the 14m-old NodeClaim as stuck; timeouts=3 alone would not fire, the condition still does', async () => {
    const after = await scanRule(RULE, [dir], { options: { [RULE]: { after: '10m' } } });
    expect(after.findings[0]!.message).toContain('1 NodeClaim launched but not registered for up to 14m (default-p9x2k)');
    const t3 = await scanRule(RULE, [dir], { options: { [RULE]: { timeouts: 3 } } });
    expect(t3.findings).toHaveLength(1);
    expect(t3.findings[0]!.message).not.toContain('on registration timeout between');
  });
});

describe(`${RULE} — fires-v1.7: "terminating due to timeout" (registration_timeout) in the logs only`, () => {
  it('reports the NodePool from the logs', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-v1.7')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object.name).toBe('gpu-training');
    expect(f.message).toContain('deleted 3 NodeClaims (gpu-training-d2kfx, gpu-training-7vq9s, gpu-training-m4w8c) on registration timeout');
    expect(f.fix).toContain('--cluster-name ml-frankfurt');
    for (const l of f.evidence.filter((e) => e.source.includes('logs.txt'))) expect(logLine(l.source)).toContain('"reason":"registration_timeout"');
  });
});

describe(`${RULE} — near-miss: launch timeouts, a single registration timeout, a claim 5 minutes old`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('stays silent', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.7.1');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
  it('for those reasons: timeouts=1 fires on the registration timeout only; an hour later the claim is stuck', async () => {
    const one = await scanRule(RULE, [dir], { options: { [RULE]: { timeouts: 1 } } });
    expect(one.findings).toHaveLength(1);
    expect(one.findings[0]!.message).toContain('deleted 1 NodeClaim (gpu-training-x1r6p) on registration timeout');
    expect(one.findings[0]!.message).not.toContain('gpu-training-k2c7d');
    const later = await scanRule(RULE, [dir], { now: '2025-10-14T04:42:55Z' });
    expect(later.findings[0]!.message).toContain('1 NodeClaim launched but not registered for up to 1h (gpu-training-q8t3z)');
  });
});

describe(`${RULE} — NodeClaims without their NodePool`, () => {
  it("judges the claims on their own conditions: launched at the input's latest time is not stuck", async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'without-pool')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
  });
  it('fires on the NodePool the claim names once it has waited past the threshold', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'without-pool')], { now: '2025-09-02T11:40:00Z' });
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.severity])).toEqual([['NodePool', 'default', 'error']]);
    expect(r.findings[0]!.message).toBe(
      'NodeClaim default-p9x2k launched at 2025-09-02T11:09:25Z and not registered for 30m (Registered=Unknown NodeNotFound: "Node not registered with cluster"). ' +
        'Its NodePool default is not in the input. Karpenter deletes a NodeClaim whose Node has not joined 15m after launch, and pending pods make it ' +
        'launch another that fails the same way: instances are paid for and pods stay Pending.',
    );
  });
});

describe(`${RULE} — a \`kubectl get\` row shows the symptom: no Node, READY Unknown, past the registration TTL`, () => {
  it('fires from the v1beta1 -o wide table alone, capped to a warning, naming what the row cannot show', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-ticket-table')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f).toMatchObject({ severity: 'warning', messageId: 'claimsNeverJoin', object: { kind: 'NodePool', name: 'analytics' } });
    expect(f.data?.states).toBe(
      'NodeClaim analytics-6jw2r (r6i.2xlarge in eu-west-1b) has no Node 22m after it was created (its `kubectl get` row shows NODE empty and READY Unknown)',
    );
    expect(String(f.data?.unseen)).toContain(
      "not the NodeClaims' conditions, the instances' console output, the kubelet log on them or the EC2NodeClass userData",
    );
    // The 3m40s-old claim may still be joining: its conditions would tell.
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === RULE).map((n) => n.object?.name)).toEqual(['analytics-t8vzq']);
    expect(f.fix).toContain('kubectl get nodeclaim analytics-6jw2r -o yaml');
    expect(f.fix).toContain('journalctl -u kubelet');
    expect(f.fix).toContain("kubectl get ec2nodeclass hardened -o jsonpath='{.spec.userData}'");
    const [row] = evidenceOf(f, 'NodeClaim', '/status/conditions/0');
    expect(splitSource(row!.source).line).toBe(7);
  });

  it('v1alpha5 Machines: one finding on the Provisioner the rows name', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-ticket-machines')]);
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.severity])).toEqual([['Provisioner', 'ingest', 'warning']]);
    expect(r.findings[0]!.related.map((x) => x.name)).toEqual(['ingest-bz5kp', 'ingest-w2m9c']);
    expect(r.findings[0]!.fix).toContain('kubectl get machine ingest-bz5kp -o yaml');
  });

  it('stays silent on rows younger than 15m, and on a row whose NODE is set (its node is unhealthy, not unregistered)', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss-ticket')]);
    expect(r.findings).toEqual([]);
    const unjudged = (x: typeof r) => x.run.notEvaluatedFor.filter((n) => n.ruleId === RULE).map((n) => n.object?.name);
    expect(unjudged(r)).toEqual(['workers-d9hpt', 'workers-fl2xs', 'workers-nm3wq']);
    const cut = await scanRule(RULE, [caseDir(RULE, 'missing-ticket-cut')]);
    expect(cut.findings).toEqual([]);
    expect(unjudged(cut)).toEqual(['etl-5mxkd', 'etl-hx2pn']);
    const later = await scanRule(RULE, [caseDir(RULE, 'near-miss-ticket')], { options: { [RULE]: { after: '5m' } } });
    expect(later.findings.map((f) => f.related.map((x) => x.name))).toEqual([['workers-d9hpt']]);
  });
});

describe(`${RULE} — tickets that show only events: Launched, never Registered`, () => {
  const stated = (x: Scan) => x.run.notEvaluatedFor.filter((n) => n.ruleId === RULE && n.stated).map((n) => n.reason);

  it('a get-events listing: the claim launched 38m before the paste fires (warning); the 9m one and the registered one do not', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-ticket-events')]);
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.severity, f.messageId])).toEqual([
      ['NodeClaim', 'reports-k4v8t', 'warning', 'eventsNeverJoin'],
    ]);
    const f = r.findings[0]!;
    expect(f.recordsOnly?.basis).toBe('events');
    // Ages only in the paste: shown as ages, never as an invented wall-clock time.
    expect(f.message).toContain('NodeClaim reports-k4v8t launched 38m before the paste was taken');
    expect(f.message).toContain('no Node joined for 38m (its other events: Unconsolidatable)');
    expect(f.message).toContain('not its conditions, the instance console output, the kubelet log on it or the EC2NodeClass userData');
    expect(f.message).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(f.fix).toContain('kubectl get nodeclaim reports-k4v8t -o yaml');
    expect(f.fix).toContain('journalctl -u kubelet');
    expect(evidenceOf(f, 'Event').map((e) => splitSource(e.source).line)).toEqual([6, 7]);
    expect(stated(r)).toEqual([expect.stringContaining('NodeClaim reports-p6w3n launched 9m before the paste was taken')]);
    // A longer wait makes the 38m one young enough to wait for.
    const patient = await scanRule(RULE, [caseDir(RULE, 'fires-ticket-events')], { options: { [RULE]: { after: '40m' } } });
    expect(patient.findings).toEqual([]);
  });

  it('a describe Events table without its heading, next to a controller log that cannot reach an AWS endpoint: cited as the likely cause', async () => {
    const dir = caseDir(RULE, 'fires-ticket-events-endpoint');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f).toMatchObject({ severity: 'warning', messageId: 'eventsNeverJoin', object: { kind: 'NodeClaim', name: '' } });
    expect(f.message).toContain('NodeClaim (name not shown) launched at 2025-06-11T07:55:02.117Z');
    expect(f.message).toContain(
      `The input also states that the controller cannot reach eks.eu-central-1.amazonaws.com (i/o timeout) (${join(dir, 'ticket.txt')}:14): the likely cause.`,
    );
  });

  it('a missing instance profile stated in the same paste is cited as the likely cause, by its line', async () => {
    const dir = caseDir(RULE, 'fires-ticket-events-profile');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings.map((f) => f.messageId)).toEqual(['eventsNeverJoin']);
    expect(r.findings[0]!.message).toContain(
      `The input also states that the instance profile does not exist (${join(dir, 'ticket.txt')}:11): the likely cause.`,
    );
  });

  it('logs only (v0.35 JSON): the registration timeout is reported with the unreachable SQS endpoint the same paste states', async () => {
    const dir = caseDir(RULE, 'fires-logs-endpoint');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.severity, f.messageId])).toEqual([
      ['NodeClaim', 'batch-t5k2w', 'warning', 'statedRegistrationTimeout'],
    ]);
    expect(r.findings[0]!.message).toContain(
      `The input also states that the controller cannot reach sqs.eu-west-1.amazonaws.com (i/o timeout) (${join(dir, 'ticket.txt')}:6): the likely cause.`,
    );
    // Without that record the finding names no cause of its own.
    const alone = await scanRule(RULE, [caseDir(RULE, 'fires-ticket-events')]);
    expect(alone.findings[0]!.message).not.toContain('the likely cause');
  });

  it('a described claim launched 11m ago is stated, not a finding; events with no NodeClaim event are no finding (only the nomination is stated)', async () => {
    const young = await scanRule(RULE, [caseDir(RULE, 'near-miss-ticket-events')]);
    expect(young.findings).toEqual([]);
    expect(stated(young)).toEqual([expect.stringContaining('NodeClaim gpu-a1-7hd2q launched 11m before the paste was taken')]);
    const none = await scanRule(RULE, [caseDir(RULE, 'missing-ticket-events')]);
    expect(none.findings).toEqual([]);
    // The pod's nomination names the claim but no event of the claim's own shows a launch: nothing to time, so the
    // nomination is all that is said (tickets-nominated-claims covers that line).
    expect(stated(none)).toEqual([expect.stringMatching(/^NodeClaim shop-m8r2d: Karpenter nominated 1 pod to it .* The input shows no Nodes at all\./)]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'default', pointer: '/status/conditions/1', severity: 'error' }],
      message: {
        name: 'default',
        text: 'NodePool default: instances launch but never join the cluster — the controller deleted 2 NodeClaims (default-b7r2c, default-f4n8w) on registration timeout between 2025-09-02T10:53:39.212Z and 2025-09-02T11:09:03.655Z; NodePool condition NodeRegistrationHealthy=False (RegistrationFailed: Failed to register node); default-p9x2k has been waiting 14m for a Node. Each NodeClaim is deleted 15m after launch and replaced by another that fails the same way: instances are paid for and pods stay Pending.',
      },
    },
    {
      case: 'fires-v1.7',
      findings: [{ kind: 'NodePool', name: 'gpu-training', pointer: '', severity: 'error' }],
    },
    {
      case: 'fires-ticket-table',
      findings: [{ kind: 'NodePool', name: 'analytics', pointer: '', severity: 'warning', messageId: 'claimsNeverJoin' }],
    },
    {
      case: 'fires-ticket-machines',
      findings: [{ kind: 'Provisioner', name: 'ingest', pointer: '', severity: 'warning', messageId: 'claimsNeverJoin' }],
    },
    {
      case: 'fires-ticket-events',
      findings: [{ kind: 'NodeClaim', name: 'reports-k4v8t', pointer: '', severity: 'warning', messageId: 'eventsNeverJoin' }],
    },
  ],
  nearMiss: [
    {},
    { case: 'near-miss-ticket' },
    // Cut at the window's edge before NODE and READY: whether a Node joined is unknown, not absent.
    { case: 'missing-ticket-cut' },
    { case: 'near-miss-ticket-events' },
  ],
  missing: [{}],
});
