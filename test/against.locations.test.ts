/**
 * Where a compared finding is placed for SARIF, annotations and Markdown (cli/change-output.ts `located`): with
 * `--against`, a finding the change introduces about an object the repository does not define (a Pod stranded by a
 * NodePool the pull request narrows) points at the repository line its evidence cites, not at the cluster dump; an
 * unchanged one stays where its evidence starts.
 */
import { describe, expect, it } from 'vitest';
import { located, type ChangeRun, type ChangeSide } from '../src/cli/change-output.js';
import { compareFindings } from '../src/engine/compare.js';
import type { Finding } from '../src/engine/findings.js';
import type { ScanReport } from '../src/reporters/report.js';

const REPO = 'gitops/clusters/prod';

function podFinding(ruleId: string, name: string): Finding {
  return {
    ruleId,
    severity: 'error',
    object: { apiVersion: 'v1', kind: 'Pod', namespace: 'data', name },
    message: `Pod data/${name} cannot be scheduled`,
    fix: 'widen the NodePool',
    evidence: [
      { object: { apiVersion: 'v1', kind: 'Pod', namespace: 'data', name }, path: '/spec/volumes', value: 'data-0', source: 'dump/data/pods.json:212' },
      {
        object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: 'data' },
        path: '/spec/template/spec/requirements/4',
        value: ['us-west-2a'],
        source: `${REPO}/karpenter/nodepools.yaml:82`,
      },
    ],
    related: [],
  } as Finding;
}

function side(input: string): ChangeSide {
  return { input, report: {} as ScanReport, fromReport: true };
}

describe('where a compared finding points', () => {
  const before = [podFinding('pv-zone-unreachable', 'postgres-0')];
  const after = [podFinding('pv-zone-unreachable', 'postgres-0'), podFinding('pv-zone-unreachable', 'analytics-0')];
  const run = (repository?: string[]): ChangeRun => ({
    command: repository ? 'against' : 'diff',
    before: side('dump'),
    after: side('dump with the repository applied'),
    comparison: compareFindings(before, after),
    spec: null,
    toolVersion: '0.1.0',
    ...(repository ? { repository } : {}),
  });
  const where = (r: ChangeRun) =>
    located(r).map((g) => `${(g.finding as { change?: string }).change} ${g.finding.object.name} ${g.location?.source}:${g.location?.line}`);

  it('an introduced finding about a cluster object: the repository line its evidence cites', () => {
    expect(where(run([REPO]))).toEqual(['unchanged postgres-0 dump/data/pods.json:212', `introduced analytics-0 ${REPO}/karpenter/nodepools.yaml:82`]);
  });

  it('without a repository (diff), the first line its evidence cites', () => {
    expect(where(run())).toEqual(['unchanged postgres-0 dump/data/pods.json:212', 'introduced analytics-0 dump/data/pods.json:212']);
  });
});
