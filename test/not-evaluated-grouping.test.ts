/**
 * A get table's rows give each rule one not-evaluated entry per object that differs only in the object. The reports
 * (text, Markdown, HTML, JSON) show one entry per rule and reason naming the objects, with one command for all; the
 * JSON entry keeps the contract's shape. The rule engine still records one entry per object (tests of rules read those).
 */
import { describe, expect, it } from 'vitest';
import type { NotEvaluated } from '../src/engine/findings.js';
import { renderHtml } from '../src/reporters/html/index.js';
import { groupNotEvaluated, objectsNotJudged } from '../src/reporters/not-evaluated.js';
import { renderJson, reportContext } from '../src/reporters/report.js';
import { renderTable } from '../src/reporters/table.js';
import { RULES } from '../src/rules/index.js';
import { parsePage, select } from './support/html.js';
import { FIXTURES, scan } from './support/scan.js';

const TABLE = `${FIXTURES}tickets/partial/get-nodes-show-labels.txt`;
const A = 'ip-10-8-9-71.eu-west-1.compute.internal';
const B = 'ip-10-8-9-80.eu-west-1.compute.internal';
const NOW = { now: '2025-11-18T14:00:00Z' };

describe('a kubectl get nodes table of two nodes', () => {
  it('the engine keeps one entry per node; the report one per rule and reason', async () => {
    const r = await scan([TABLE], NOW);
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'uninitialized-taint-lingering')).toHaveLength(2);
    const perObject = r.report.notEvaluated.filter((n) => n.partial);
    expect(perObject.map((n) => [n.ruleId, n.reason])).toEqual([
      [
        'stale-disrupted-taint',
        `Nodes ${A} and ${B} (${TABLE}): a \`kubectl get\` table does not show spec.taints: add \`kubectl get node ${A} ${B} -o yaml\``,
      ],
      // Node A's NotReady row is stated (since when and why not shown), not a not-evaluated entry of node-unhealthy-not-repaired.
      [
        'node-memory-pressure',
        `Nodes ${A} and ${B} (${TABLE}): a \`kubectl get\` table does not show status.conditions: add \`kubectl get node ${A} ${B} -o yaml\``,
      ],
      [
        'uninitialized-taint-lingering',
        `Nodes ${A} and ${B} (${TABLE}): a \`kubectl get\` table does not show spec.taints: add \`kubectl get node ${A} ${B} -o yaml\``,
      ],
      [
        'startup-taint-not-removed',
        `Nodes ${A} and ${B} (${TABLE}): a \`kubectl get\` table does not show spec.taints: add \`kubectl get node ${A} ${B} -o yaml\``,
      ],
    ]);
  });

  it('JSON: the entry shape of the contract; a grouped entry names its nodes and has no single object', async () => {
    const r = await scan([TABLE], NOW);
    const json = JSON.parse(renderJson(r.report)) as { notEvaluated: Array<Record<string, unknown>> };
    const entries = json.notEvaluated.filter((n) => String(n.reason).includes(TABLE));
    expect(entries.map((n) => Object.keys(n))).toEqual([
      ['ruleId', 'reason'],
      ['ruleId', 'reason'],
      ['ruleId', 'reason'],
      ['ruleId', 'reason'],
    ]);
  });

  it('text: one line per rule, and the count is of nodes, not of rule-node pairs', async () => {
    const r = await scan([TABLE], NOW);
    const text = renderTable(r.report, reportContext(r.snapshot, r.run, RULES), { color: false, width: 200, ascii: true });
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Not evaluated for 2 object(s) - the input shows only part of them:');
    expect(flat).toContain(`uninitialized-taint-lingering: Nodes ${A} and ${B} (${TABLE}): a \`kubectl get\` table does not show spec.taints`);
    expect(text.split('uninitialized-taint-lingering:')).toHaveLength(2);
    expect(flat).toContain('(2 object(s) not judged)');
  });

  it('HTML: the header lists the grouped entry once', async () => {
    const r = await scan([TABLE], NOW);
    const html = renderHtml(r.report, reportContext(r.snapshot, r.run, RULES), r.snapshot);
    const items = select(parsePage(html), 'li').map((e) => e.text);
    expect(items.filter((t) => t.startsWith('uninitialized-taint-lingering:'))).toEqual([
      `uninitialized-taint-lingering: Nodes ${A} and ${B} (${TABLE}): a \`kubectl get\` table does not show spec.taints: add \`kubectl get node ${A} ${B} -o yaml\``,
    ]);
  });
});

describe('groupNotEvaluated', () => {
  const entry = (name: string, reason?: string): NotEvaluated => ({
    ruleId: 'node-memory-pressure',
    reason: reason ?? `Node ${name} (t.txt): a \`kubectl get\` table does not show status.conditions: add \`kubectl get node ${name} -o yaml\``,
    object: { apiVersion: 'v1', kind: 'Node', namespace: null, name },
    partial: 'a kubectl get table',
  });

  it('past 8 nodes: the first 8 named, and one command for every node', () => {
    const names = Array.from({ length: 11 }, (_, i) => `node-${i + 1}`);
    const [g] = groupNotEvaluated(names.map((n) => entry(n)));
    expect(g!.reason).toBe(
      'Nodes node-1, node-2, node-3, node-4, node-5, node-6, node-7, node-8 and 3 more (t.txt): a `kubectl get` table does not show status.conditions: add `kubectl get node -o yaml`',
    );
    expect(objectsNotJudged([g!])).toBe(11);
  });

  it('a reason that names the object outside a command, or differs otherwise, stays its own line', () => {
    const prose = (n: string) => entry(n, `Node ${n} (t.txt): the input shows no pods on ${n}: add \`kubectl describe node ${n}\``);
    const timed = (n: string, t: string) => entry(n, `Node ${n} (t.txt): Ready=Unknown since ${t}: pass --now`);
    const list = [prose('a'), prose('b'), timed('c', '10:00'), timed('d', '11:00')];
    expect(groupNotEvaluated(list)).toEqual(list);
  });

  it('entries without a partial source (a repository reference) are never grouped', () => {
    const outside = (n: string): NotEvaluated => ({
      ruleId: 'nodepool-missing-nodeclass',
      reason: `NodePool ${n} (np.yaml): EC2NodeClass x is not in the scanned files`,
    });
    const list = [outside('a'), outside('b')];
    expect(groupNotEvaluated(list)).toEqual(list);
  });
});
