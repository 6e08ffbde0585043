import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-termination-handler-conflict';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: cluster-info dump, NTH queue processor on Karpenter's own queue`, () => {
  const dir = caseDir(RULE, 'fires');
  const deployments = join(dir, 'kube-system/deployments.json');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump tree and the controller log', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, Deployment: 2, Pod: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.logs.length).toBe(3);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
  });

  it('reports one warning on the Karpenter Deployment: both consume the same queue', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    expect(f.message).toContain(
      'aws-node-termination-handler runs in queue-processor mode (kube-system/aws-node-termination-handler on queue prod-usw2) while Karpenter controller kube-system/karpenter handles interruptions from queue prod-usw2',
    );
    expect(f.message).toContain('both consume the same SQS queue, so each interruption message reaches only one of them');
    expect(f.related).toEqual([{ kind: 'Deployment', namespace: 'kube-system', name: 'aws-node-termination-handler' }]);
  });

  it('cites INTERRUPTION_QUEUE, ENABLE_SQS_TERMINATION_DRAINING and QUEUE_URL at their env entries, and the log line', () => {
    const ev = evidenceOf(f, 'Deployment', /\/env\/\d+\/value$/);
    const karp = ev.find((e) => e.object!.name === 'karpenter' && e.note?.startsWith('Karpenter interruption queue'))!;
    expect(rawValueAt(karp)).toBe('prod-usw2');
    expectSourceIs(karp, deployments);
    const nth = ev.filter((e) => e.object!.name === 'aws-node-termination-handler');
    expect(nth.map((e) => rawValueAt(e))).toEqual(['true', 'https://sqs.us-west-2.amazonaws.com/111122223333/prod-usw2']);
    expect(nth.map((e) => e.note)).toEqual(['NTH queue-processor mode', 'the same queue Karpenter reads']);
    for (const e of nth) expectSourceIs(e, deployments);
    const log = f.evidence.find((e) => e.note === 'Karpenter acting on an interruption message itself');
    expect(log?.source).toBe(`${join(dir, 'kube-system/karpenter-7d9f6c5b8d-x2k9p/logs.txt')}:2`);
    expect(String(log?.value)).toContain('initiating delete from interruption message');
  });

  it('fix: uninstall the handler release', () => {
    expect(f.fix).toContain('helm uninstall aws-node-termination-handler -n kube-system');
    expect(f.fix).toContain('kubectl -n kube-system delete deployment aws-node-termination-handler');
  });

  it('NTH with queue draining switched off and no QUEUE_URL is silent', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-nth-'));
    try {
      await cp(dir, tmp, { recursive: true });
      const file = join(tmp, 'kube-system/deployments.json');
      const text = await readFile(file, 'utf8');
      const on = '"name": "ENABLE_SQS_TERMINATION_DRAINING",\n                                        "value": "true"';
      const url = '"value": "https://sqs.us-west-2.amazonaws.com/111122223333/prod-usw2"';
      expect(text).toContain(on);
      expect(text).toContain(url);
      await writeFile(file, text.replace(on, on.replace('"true"', '"false"')).replace(url, '"value": ""'));
      expect((await scanRule(RULE, [tmp])).findings).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — fires-manifests: GitOps repo, NTH on its own queue`, () => {
  it('reports the duplicate handling of the same events', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.message).toContain('(kube-system/aws-node-termination-handler on queue prod-usw2-nth)');
    expect(f.message).toContain('handles interruptions from queue prod-usw2-karpenter');
    expect(f.message).toContain('both receive the same EventBridge events and both cordon and drain the node');
    const [url] = evidenceOf(f, 'Deployment').filter((e) => e.note === 'NTH queue prod-usw2-nth');
    expect(url!.source).toBe(`${join(dir, 'platform/aws-node-termination-handler/deployment.yaml')}:64`);
    expectSourceAtField(
      url!,
      join(dir, 'platform/aws-node-termination-handler/deployment.yaml'),
      'value: https://sqs.us-west-2.amazonaws.com/111122223333/prod-usw2-nth',
    );
  });
});

describe(`${RULE} — near-miss: NTH only as an IMDS-mode DaemonSet`, () => {
  it('is silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Deployment: 1, DaemonSet: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        {
          kind: 'Deployment',
          namespace: 'kube-system',
          name: 'karpenter',
          pointer: '/spec/template/spec/containers/0/env/12/value',
          severity: 'warning',
          messageId: 'nthQueueConflict',
        },
      ],
      message: {
        name: 'karpenter',
        text: 'aws-node-termination-handler runs in queue-processor mode (kube-system/aws-node-termination-handler on queue prod-usw2) while Karpenter controller kube-system/karpenter handles interruptions from queue prod-usw2: both consume the same SQS queue, so each interruption message reaches only one of them and is deleted — Karpenter misses the ones NTH takes, and NTH cordons and drains Karpenter nodes behind its back.',
      },
    },
    {
      case: 'fires-manifests',
      findings: [
        {
          kind: 'Deployment',
          namespace: 'kube-system',
          name: 'karpenter',
          pointer: '/spec/template/spec/containers/0/env/12/value',
          severity: 'warning',
          messageId: 'nthQueueConflict',
        },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
