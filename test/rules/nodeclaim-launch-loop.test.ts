import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine } from './fixture-helpers.js';

const RULE = 'nodeclaim-launch-loop';

describe(`${RULE} — fires from logs alone (v1.8, info level): created and deleted every five minutes, no error in the input`, () => {
  it('warns on NodePool default, says the cause is not in the input and what to collect', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'default' });
    expect(f.message).toContain(
      '4 NodeClaims created and deleted again within minutes between 2025-10-20T16:05:07.903Z and 2025-10-20T16:20:29.870Z (default-6tq2w, default-bx9k3, default-m3d7r, default-z8p4n)',
    );
    expect(f.message).toContain('The cause is not in the input.');
    expect(f.message).toContain('From logs only');
    const cited = f.evidence.map((e) => logLine(e.source));
    expect(cited.filter((l) => l.includes('"message":"created nodeclaim"'))).toHaveLength(3);
    expect(cited.filter((l) => l.includes('"message":"deleted nodeclaim"'))).toHaveLength(3);
    expect(f.fix).toContain('kubectl get events -A --field-selector involvedObject.kind=NodeClaim -o yaml');
    expect(f.fix).toContain('kubectl get nodeclaims -l karpenter.sh/nodepool=default -o yaml');
  });
  it('lifetime=4m: five-minute lives are not short any more', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')], { options: { [RULE]: { lifetime: '4m' } } });
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — fires from NodeClaim objects and events (v1.2.1): the cause another rule found is named`, () => {
  it('names insufficient capacity and the rule that reports it', async () => {
    const dir = caseDir(RULE, 'fires-objects');
    const f = (await scanRule(RULE, [dir])).findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'spot' });
    expect(f.message).toContain('3 NodeClaims created and deleted again within minutes');
    expect(f.message).toContain(
      'Cause: EC2 has no capacity for the requested instance types (InsufficientInstanceCapacity) (reported by insufficient-capacity-all-offerings).',
    );
    const deleting = evidenceOf(f, 'NodeClaim', '/metadata/deletionTimestamp');
    expect(deleting).toHaveLength(3);
    for (const e of deleting) expectSourceIs(e, join(dir, 'karpenter.yaml'));
    expect(f.fix).toContain('see insufficient-capacity-all-offerings');
  });
});

describe(`${RULE} — fires from ≤ v0.31 console logs: created machine / deleted machine`, () => {
  it('reports the Provisioner', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.31')])).findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name: 'workers' });
    expect(f.message).toContain('Provisioner workers: 3 NodeClaims created and deleted again');
  });
});

describe(`${RULE} — near-miss: two short-lived NodeClaims, then one launched and registered`, () => {
  it('stays silent', async () => {
    const dir = caseDir(RULE, 'near-miss');
    expect((await scanRule(RULE, [dir])).findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-logs-v0.31',
      findings: [{ kind: 'Provisioner', name: 'workers', pointer: '', severity: 'warning', messageId: 'launchLoop' }],
      message: {
        name: 'workers',
        text: 'Provisioner workers: 3 NodeClaims created and deleted again within minutes between 2023-07-03T11:20:04.955Z and 2023-07-03T11:26:21.842Z (workers-2hf7d, workers-8nq3c, workers-tk5w9), and none launched since — the pending pods get no node while the pool churns. The cause is not in the input. From logs only: kubectl get nodepools,nodeclaims,ec2nodeclasses -o yaml and kubectl get events -A -o yaml would confirm it.',
      },
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'NodePool', name: 'default', pointer: '', severity: 'warning', messageId: 'launchLoop' }],
    },
    {
      case: 'fires-objects',
      findings: [{ kind: 'NodePool', name: 'spot', pointer: '', severity: 'warning', messageId: 'launchLoop' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
