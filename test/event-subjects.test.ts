/**
 * Event rows pasted without what named their object (issue 20): the rows of a describe Events table alone, or a
 * `kubectl get events` listing whose OBJECT column was cut. The kind comes from the reason and source where one kind
 * fits (`EVENT_SUBJECTS`), the name stays unknown, and the rules that need only kind and message name the cause.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { subjectKind } from '../src/snapshot/messages/event-subjects.js';
import { FIXTURES, findingLabel, scan, scanRule } from './support/scan.js';

const ticket = (name: string) => `${FIXTURES}tickets/event-subjects/${name}`;

describe('the kind an event is recorded on, from reason and source', () => {
  it.each([
    ['FailedScheduling', 'default-scheduler', '0/3 nodes are available: 3 Insufficient cpu.', 'Pod'],
    ['FailedScheduling', 'karpenter', 'Failed to schedule pod, incompatible with nodepool "x"', 'Pod'],
    ['FailedScheduling', '', '0/3 nodes are available: 3 Insufficient cpu.', 'Pod'],
    ['FailedAttachVolume', 'attachdetach-controller', 'Multi-Attach error for volume "pvc-1"', 'Pod'],
    ['FailedDraining', '', 'Failed to drain node, 1 pods are waiting to be evicted', 'Node'],
    ['DisruptionBlocked', 'karpenter', 'Cannot disrupt NodeClaim: state node is nominated for a pending pod', 'NodeClaim'],
    ['DisruptionBlocked', 'karpenter', 'No allowed disruptions for disruption reason Drifted due to blocking budget', 'NodePool'],
    // node-controller records NodeNotReady on the pods of the node; its Node event names the node in its message.
    ['NodeNotReady', 'node-controller', 'Node is not ready', 'Pod'],
  ])('%s by %s: %s', (reason, from, message, kind) => {
    expect(subjectKind(reason, from, message)?.kind).toBe(kind);
  });

  it.each([
    // v0.3x records the same Unconsolidatable message on the Node and its NodeClaim.
    ['Unconsolidatable', 'karpenter', "Can't replace with a cheaper node"],
    ['DisruptionBlocked', 'karpenter', 'state node is marked for deletion'],
    ['NodeNotReady', 'node-controller', 'Node ip-10-0-1-2.ec2.internal status is now: NodeNotReady'],
    ['FailedScheduling', 'some-custom-scheduler', '0/3 nodes are available'],
  ])('%s by %s "%s": unknown, not guessed', (reason, from, message) => {
    expect(subjectKind(reason, from, message)).toBeUndefined();
  });
});

describe('rules judge rows whose object the paste does not name', () => {
  it('describe rows alone of a drain failing for 19h: node-stuck-draining on an unnamed Node, saying the name is not shown', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('drain-rows-no-describe.md')]);
    expect(r.findings.map(findingLabel)).toEqual(['node-stuck-draining Node (no name) (records)']);
    const [f] = r.findings;
    expect(f!.message).toMatch(/^Node \(name not shown\) is stuck draining: its events show the drain failing for 18h57m/);
    expect(f!.evidence[0]).toMatchObject({
      note: expect.stringContaining('the paste does not name the Node this event is about (its kind is read from FailedDraining by karpenter'),
      source: expect.stringMatching(/drain-rows-no-describe\.md:8$/),
    });
    expect(f!.fix).toContain('spec.nodeName=<node>');
  });

  it('a get events row without OBJECT or SOURCE, (x95 over 7h52m): the same finding from a listing', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('get-events-no-object-drain.md')]);
    expect(r.findings.map(findingLabel)).toEqual(['node-stuck-draining Node (no name) (records)']);
    expect(r.findings[0]!.message).toContain('the drain failing for 7h48m (95 events');
  });

  it('rows cut to Type, Reason, Message (no Age, no From): read by their catalogued reason; a drain with no times is stated, not judged', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('cut-rows-draining.md')]);
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => n.reason);
    expect(stated).toEqual([expect.stringMatching(/^Node \(name not shown\): its events show the drain failing \(2 times in the rows shown;/)]);
    expect(stated[0]).toContain('the input shows no times');
  });

  it('rows cut to Type, Reason, Age, Message, (x130 over 2d5h): the drain judged from the ages, at warning since only records show it', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('cut-rows-with-ages.md')]);
    expect(r.findings.map(findingLabel)).toEqual(['node-stuck-draining Node (no name) (records)']);
    expect(r.findings[0]!.message).toContain('the drain failing for 2d4h (130 events');
    expect(r.findings[0]!.severity).toBe('warning');
  });

  it('two-column lines opening with Warning/Normal under reasons no emitter records stay unread', async () => {
    const r = await scan([ticket('not-event-rows.md')]);
    expect(r.snapshot.events()).toEqual([]);
    expect(r.load.skipped.map((s) => s.reason).join('\n')).toMatch(/QuotaNearlyUsed, ReportReady\) is no event reason karpdoctor knows/);
  });

  it('listing rows without OBJECT may be other nodes each: stated one by one, never joined into one long drain', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('get-events-no-object-short.md')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated)).toHaveLength(2);
  });

  it('volume node affinity conflict beside Nominated, rows under Events: only: the Pending pod symptom at warning', async () => {
    const r = await scanRule('pv-zone-unreachable', [ticket('volume-conflict-rows-wrapped.md')]);
    expect(r.findings.map((f) => [f.severity, findingLabel(f)])).toEqual([['warning', 'pv-zone-unreachable Pod (no name) (records)']]);
    expect(r.findings[0]).toMatchObject({ messageId: 'statedVolumeConflict', data: expect.objectContaining({ pod: '(name not shown)' }) });
    expect(r.findings[0]!.message).toContain('while Karpenter nominated it for a node 6 times');
  });

  it("rows indented between paragraphs, no fence: Karpenter's FailedScheduling names the misfit of an unnamed pod, no namespace invented", async () => {
    const r = await scan([ticket('unfenced-rows-in-prose.txt')], { only: ['pending-pod-no-nodepool-fits', 'no-instance-type-fits'] });
    expect(r.findings.map(findingLabel).sort()).toEqual(['no-instance-type-fits Pod (no name)', 'pending-pod-no-nodepool-fits Pod (no name) (records)']);
    for (const f of r.findings) expect(f.object).toMatchObject({ namespace: null, name: '' });
    const misfit = r.findings.find((f) => f.ruleId === 'pending-pod-no-nodepool-fits')!;
    expect(misfit.message).toMatch(/^Pod \(name not shown\) fits no NodePool: NodePool gpu-a10: did not tolerate nvidia\.com\/gpu=true:NoSchedule/);
  });

  it('two unnamed pods with different failures stay two, and the pod a later row names is not merged into either', async () => {
    const r = await scanRule('no-instance-type-fits', [ticket('two-unnamed-pods-and-a-named-one.md')]);
    // Each unnamed pod on its own: 14 and 11 failures, not one pod failing 25 times.
    expect(r.findings.map((f) => [findingLabel(f), f.data?.occurrencesClause])).toEqual([
      ['no-instance-type-fits Pod (no name)', '14 times'],
      ['no-instance-type-fits Pod (no name)', '11 times'],
    ]);
    for (const f of r.findings) expect(f.data?.key).toBe('(namespace not shown)/(name not shown)');
    // The named row, though its message is the first block's, is its own pod: seen once, stated, not added to a finding.
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => n.reason);
    expect(stated).toEqual([expect.stringMatching(/^Pod etl\/nightly-rollup-0: Karpenter could not schedule it once /)]);
    expect(stated[0]).toContain('kubectl get pod -n etl nightly-rollup-0 -o yaml');
  });

  it("DisruptionBlocked rows: the NodePool's budget and the Node's do-not-disrupt, each saying its name is not shown", async () => {
    const budget = await scanRule('disruption-budget-blocks-all', [ticket('budget-blocked-rows.md')]);
    expect(budget.findings.map(findingLabel)).toEqual(['disruption-budget-blocks-all NodePool (no name) (records)']);
    expect(budget.findings[0]!.message).toMatch(/^NodePool \(name not shown\)'s disruption budgets allowed no Underutilized disruption/);
    const node = await scan([ticket('do-not-disrupt-rows.md')], { only: ['node-do-not-disrupt-annotation', 'pod-do-not-disrupt-blocks-node'] });
    expect(node.findings.map(findingLabel).sort()).toEqual([
      'node-do-not-disrupt-annotation Node (no name) (records)',
      'pod-do-not-disrupt-blocks-node Pod jobs/etl-runner-5x2lp (records)',
    ]);
    expect(node.findings.find((f) => f.ruleId === 'pod-do-not-disrupt-blocks-node')!.message).toContain('blocks its node from consolidation');
  });

  it('a reason recorded on several kinds, and node-controller marking pods: no node finding is invented', async () => {
    const r = await scan([ticket('ambiguous-rows.md')]);
    expect(r.findings).toEqual([]);
    expect(r.snapshot.events().map((e) => e.involved.kind)).toEqual(['', 'Pod']);
  });
});

describe('the CLI on a ticket of bare event rows', () => {
  it('names the cause and cites the row', () => {
    const root = join(import.meta.dirname, '..');
    const out = spawnSync(process.execPath, [join(root, 'bin', 'karpdoctor.js'), 'scan', ticket('drain-rows-no-describe.md'), '--format', 'json'], {
      cwd: root,
      encoding: 'utf8',
    });
    const report = JSON.parse(out.stdout) as {
      findings: Array<{ ruleId: string; object: { kind: string; name: string }; evidence: Array<{ source: string }> }>;
    };
    expect(report.findings.map((f) => [f.ruleId, f.object.kind, f.object.name])).toEqual([['node-stuck-draining', 'Node', '']]);
    expect(report.findings[0]!.evidence[0]!.source).toMatch(/drain-rows-no-describe\.md:8$/);
  });
});
