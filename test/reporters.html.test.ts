/**
 * `--format html` over fixtures/mixed-incidents (the page's structure: the DOM contract the browser test and the charts
 * rely on) and over fixtures/hostile-markup (a dump whose every name and message carries markup: none may become markup).
 */
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { BLOCKER_ORDER } from '../src/engine/rule.js';
import { NODE_BLOCKERS, UNHEALTHY_RULES } from '../src/reporters/html/blockers.js';
import { FILTER_SCRIPT } from '../src/reporters/html/filter-script.js';
import { renderHtml } from '../src/reporters/html/index.js';
import { STYLE } from '../src/reporters/html/style.js';
import { reportContext, type ScanReport } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { descendants, parsePage, select, type El } from './support/html.js';
import { FIXTURES, TEST_CRDS, scan } from './support/scan.js';

async function page(dir: string, crds?: string): Promise<{ html: string; els: El[]; report: ScanReport }> {
  const r = await scan([`${FIXTURES}${dir}`], crds ? { crds } : {});
  const html = renderHtml(r.report, reportContext(r.snapshot, r.run, RULES), r.snapshot);
  return { html, els: parsePage(html), report: r.report };
}

const NODE = {
  reclaim: 'ip-10-20-52-18.us-west-2.compute.internal',
  unknown: 'ip-10-20-88-140.us-west-2.compute.internal',
  interrupted: 'ip-10-20-81-37.us-west-2.compute.internal',
  uninitialized: 'ip-10-20-120-33.us-west-2.compute.internal',
  cilium: 'ip-10-20-45-201.us-west-2.compute.internal',
};

describe('HTML report of fixtures/mixed-incidents', () => {
  let p: Awaited<ReturnType<typeof page>>;
  beforeAll(async () => {
    p = await page('mixed-incidents', TEST_CRDS);
  });

  it('is one self-contained page: a CSP that forbids every fetch, inline style and script, links only within the page', () => {
    const csp = select(p.els, 'meta', { 'http-equiv': 'Content-Security-Policy' });
    expect(csp.map((m) => m.attrs.content)).toEqual(["default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"]);
    expect(p.els.filter((e) => 'src' in e.attrs)).toEqual([]);
    expect(p.els.filter((e) => 'href' in e.attrs).map((e) => e.attrs.href)).toEqual(['#findings', '#nodes', '#budgets']);
    expect(select(p.els, 'style').map((s) => s.text)).toEqual([STYLE]);
    expect(select(p.els, 'script').map((s) => [s.attrs.type, s.attrs.id])).toEqual([
      ['application/json', 'report-data'],
      [undefined, undefined],
    ]);
    expect(select(p.els, 'script')[1]!.text).toBe(FILTER_SCRIPT);
    expect(JSON.parse(select(p.els, 'script', { id: 'report-data' })[0]!.text)).toEqual(JSON.parse(JSON.stringify(p.report)));
  });

  it('heads the page with sources, reference time and its source, Karpenter version, counts, skipped inputs and rules not evaluated', () => {
    const header = select(p.els, 'header', { id: 'summary' })[0]!;
    const rows = Object.fromEntries(select(descendants(header), 'dt').map((dt) => [dt.text, dt.parent!.children[dt.parent!.children.indexOf(dt) + 1]!.text]));
    expect(rows.Sources).toBe(`${FIXTURES}mixed-incidents`.replace(/\/$/, ''));
    expect(rows['Reference time']).toMatch(/^2025-06-18T09:30:00\.000Z \(latest time in the dump: /);
    expect(rows.Karpenter).toMatch(
      /^v1\.4\.0 \(image public\.ecr\.aws\/karpenter\/controller:1\.4\.0@sha256:.*\); feature gates: NodeRepair=false, SpotToSpotConsolidation=false/,
    );
    expect(rows.Read).toBe('177 file(s), 290 object(s), 67 Karpenter log line(s)');
    expect(rows['Not in input']).toBe('VolumeAttachment (used by the enabled rules)');
    expect(rows.Objects).toBe(
      'Event 68, Node 13, PersistentVolume 7, PersistentVolumeClaim 7, Pod 109, Service 19, DaemonSet 5, Deployment 17, ReplicaSet 17, ' +
        'StatefulSet 2, EC2NodeClass 1, NodeClaim 11, NodePool 4, PodDisruptionBudget 7, StorageClass 3',
    );
    expect(select(p.els, 'p', { class: 'verdict' })[0]!.text).toBe('6 errors, 7 warnings, 0 info');
    const skipped = select(p.els, 'details', { id: 'skipped' })[0]!;
    expect(skipped.children[0]!.text).toBe('Skipped inputs (2)');
    expect(select(descendants(skipped), 'li').map((li) => li.text)).toEqual(p.report.snapshot.skipped.map((k) => `${k.source}: ${k.reason}`));
    expect(select(p.els, 'details', { id: 'not-evaluated' })).toEqual([]);
  });

  it('shows every finding as an article with its severity, rule, NodePools and namespace as data attributes', () => {
    const articles = select(p.els, 'article', { class: 'finding' });
    expect(articles.map((a) => [a.attrs['data-severity'], a.attrs['data-rule'], a.attrs['data-nodepool'], a.attrs['data-namespace']])).toEqual([
      ['error', 'uninitialized-taint-lingering', 'general', ''],
      ['error', 'interruption-drained-stateful-node', 'data', ''],
      ['error', 'node-unhealthy-not-repaired', 'general', ''],
      ['error', 'insufficient-capacity-all-offerings', 'gpu-spot', ''],
      ['error', 'pv-zone-unreachable', 'data', 'data'],
      // A StorageClass whose pods are all Pending: no node, so no pool.
      ['error', 'storageclass-immediate-binding', '', ''],
      ['warning', 'pod-do-not-disrupt-blocks-node', 'reports', ''],
      ['warning', 'duplicate-nodeclaims', 'data', ''],
      ['warning', 'undeclared-startup-taint', 'general', ''],
      ['warning', 'unhealthy-node-freezes-budget', 'general', ''],
      ['warning', 'nodeclaim-launch-loop', 'gpu-spot', ''],
      ['warning', 'expire-without-termination-grace-period', 'reports', ''],
      // A PDB's pool is that of the node its pod runs on.
      ['warning', 'pdb-blocks-eviction', 'reports', 'finance'],
    ]);
    expect(p.report.findings).toHaveLength(13);
    expect(select(p.els, 'output', { id: 'finding-count' })[0]!.text).toBe('13 of 13 findings');
  });

  it('gives each finding its message, evidence with file:line, and fix', () => {
    const article = select(p.els, 'article', { 'data-rule': 'pod-do-not-disrupt-blocks-node' })[0]!;
    const inside = descendants(article);
    expect(select(inside, 'h3')[0]!.text).toBe(`warning pod-do-not-disrupt-blocks-node Node ${NODE.reclaim}`);
    expect(select(inside, 'p', { class: 'message' })[0]!.text).toMatch(
      /^Karpenter node ip-10-20-52-18\.us-west-2\.compute\.internal \(NodeClaim reports-m2kxv\) cannot be consolidated/,
    );
    const sources = select(inside, 'cite').map((c) => c.text);
    const finding = p.report.findings.find((f) => f.ruleId === 'pod-do-not-disrupt-blocks-node')!;
    // The controller's version and gates are the header's; the JSON keeps them in the finding for machines.
    const controllerFacts = finding.evidence.filter((e) => e.object?.kind === 'Deployment' && e.object.name === 'karpenter');
    expect(controllerFacts.map((e) => e.note)).toEqual([expect.stringMatching(/^Karpenter v[\d.]+ from image$/), 'feature gates']);
    expect(sources).toEqual(finding.evidence.filter((e) => !controllerFacts.includes(e)).map((e) => e.source));
    expect(sources.every((s) => /^\/.*mixed-incidents\/.*:\d+$/.test(s))).toBe(true);
    expect(select(inside, 'pre', { class: 'fix' })[0]!.text).toBe(finding.fix);
  });

  it('offers filters with labels, one option per value present, "" meaning all', () => {
    const options = (id: string) => select(p.els, 'select', { id })[0]!.children.map((o) => o.attrs.value);
    expect(options('filter-severity')).toEqual(['', 'error', 'warning']);
    expect(options('filter-nodepool')).toEqual(['', 'data', 'general', 'gpu-spot', 'reports']);
    expect(options('filter-namespace')).toEqual(['', 'data', 'finance']);
    expect(options('filter-rule')).toEqual(['', ...[...new Set(p.report.findings.map((f) => f.ruleId))].sort()]);
    for (const id of ['filter-severity', 'filter-rule', 'filter-nodepool', 'filter-namespace']) expect(select(p.els, 'label', { for: id })).toHaveLength(1);
  });

  it('draws every node of each NodePool as CPU and memory bars coloured by its first blocker', () => {
    const pools = select(p.els, 'figure', { class: 'nodepool' });
    const nodesOf = (f: El) => select(descendants(f), 'g', { class: 'node' }).map((g) => `${g.attrs['data-node']}=${g.attrs['data-blocker']}`);
    expect(Object.fromEntries(pools.map((f) => [f.attrs['data-nodepool'], nodesOf(f).length]))).toEqual({ data: 4, general: 6, 'gpu-spot': 0, reports: 1 });
    const blocker = Object.fromEntries(pools.flatMap(nodesOf).map((s) => s.split('=')));
    expect(blocker[NODE.reclaim]).toBe('do-not-disrupt'); // before its PDB (§7.11 order)
    expect(blocker[NODE.unknown]).toBe('unhealthy'); // before the budget it freezes
    expect(blocker[NODE.uninitialized]).toBe('uninitialized');
    expect(blocker[NODE.cilium]).toBe('budget');
    expect(blocker[NODE.interrupted]).toBe('none');
    const cilium = select(p.els, 'g', { 'data-node': NODE.cilium })[0]!;
    const bars = select(descendants(cilium), 'rect').filter((r) => r.attrs.class?.startsWith('bar '));
    // nodes.json: allocatable 3920m and 7113304Ki; its DaemonSet pods request 285m and 488Mi.
    expect(bars.map((r) => [r.attrs.class, r.attrs['data-requested'], r.attrs['data-allocatable']])).toEqual([
      ['bar cpu', '0.285', '3.92'],
      ['bar memory', String(488 * 2 ** 20), String(7113304 * 1024)],
    ]);
    expect(select(descendants(cilium), 'title')[0]!.text).toMatch(/first blocker: budget; causes: unhealthy-node-freezes-budget \(via NodePool general\)$/);
    const legend = select(p.els, 'ul', { class: 'legend' })[0]!;
    expect(select(descendants(legend), 'b').map((b) => b.text)).toEqual([...NODE_BLOCKERS]);
  });

  it('keeps a place for the budget charts and a timeline in each finding', () => {
    expect(select(p.els, 'section').map((s) => s.attrs.id)).toEqual(['findings', 'nodes', 'budgets']);
  });
});

describe('HTML report of desired state only (one NodePool manifest)', () => {
  it('draws no empty pools when the input holds no Nodes, and says why', async () => {
    const p = await page('rules/node-do-not-disrupt-annotation/spec-only');
    const nodes = select(p.els, 'section', { id: 'nodes' })[0]!;
    expect(select(descendants(nodes), 'figure')).toEqual([]);
    expect(select(descendants(nodes), 'p').map((e) => e.text)).toContain('The input holds no Nodes (desired state only, or they were not collected).');
    expect(select(p.els, 'article', { class: 'finding' })).toHaveLength(p.report.findings.length);
  });
});

describe('the blocker colours', () => {
  it('name unhealthy-node rules that exist, and a colour class for every blocker rank used by a rule', () => {
    const ids = new Set(RULES.map((r) => r.meta.id));
    expect(UNHEALTHY_RULES.filter((id) => !ids.has(id))).toEqual([]);
    expect(RULES.filter((r) => r.meta.blocker && !BLOCKER_ORDER.includes(r.meta.blocker))).toEqual([]);
  });
});

/** Strings of fixtures/hostile-markup that a page must show as text, never as markup. */
const HOSTILE = {
  node: "<script>alert('node')</script>",
  node2: "javascript:alert('node2')</title><script>alert('title')</script>",
  pool: `pool"><img src=x onerror=alert('pool')>`,
  condition: "</script><script>alert('condition')</script>",
  log: `ERROR could not schedule pod: incompatible with nodepool "</style><script>alert('limits')</script>"`,
};

describe('HTML report of a dump whose names and messages carry markup (fixtures/hostile-markup)', () => {
  let p: Awaited<ReturnType<typeof page>>;
  /** Every element and attribute name a page of a benign dump has: what the page (and its charts) write themselves. */
  const own = { tags: new Set<string>(), attributes: new Set<string>() };
  beforeAll(async () => {
    p = await page('hostile-markup');
    for (const e of (await page('mixed-incidents', TEST_CRDS)).els) {
      own.tags.add(e.tag);
      for (const a of Object.keys(e.attrs)) own.attributes.add(a);
    }
  });

  it('finds the incidents it was built with (so the hostile text does reach the page)', () => {
    expect(p.report.findings.map((f) => f.ruleId).sort()).toEqual([
      'expire-without-termination-grace-period',
      'karpenter-controller-on-karpenter-node',
      'node-do-not-disrupt-annotation',
      'node-unhealthy-not-repaired',
      'nodepool-limits-reached',
      'nodepool-without-limits',
      'pod-do-not-disrupt-blocks-node',
      'unhealthy-node-freezes-budget',
    ]);
    expect(select(p.els, 'article', { class: 'finding' })).toHaveLength(8);
  });

  it('has only the elements and attributes the page itself writes', () => {
    expect([...new Set(p.els.map((e) => e.tag))].filter((t) => !own.tags.has(t))).toEqual([]);
    expect([...new Set(p.els.flatMap((e) => Object.keys(e.attrs)))].filter((a) => !own.attributes.has(a))).toEqual([]);
    expect(own.tags.has('img') || own.tags.has('iframe') || [...own.attributes].some((a) => /^on/i.test(a))).toBe(false);
    expect(select(p.els, 'img')).toEqual([]);
    expect(p.els.flatMap((e) => Object.keys(e.attrs)).filter((a) => /^on/i.test(a))).toEqual([]);
    expect(p.els.filter((e) => 'href' in e.attrs && !e.attrs.href!.startsWith('#'))).toEqual([]);
  });

  it('has exactly its own script and style elements, and the raw text holds no tag from the input', () => {
    expect(select(p.els, 'script').map((s) => s.attrs.type ?? 'js')).toEqual(['application/json', 'js']);
    expect(select(p.els, 'script')[1]!.text).toBe(FILTER_SCRIPT);
    expect(select(p.els, 'style').map((s) => s.text)).toEqual([STYLE]);
    expect(p.html.match(/<script/gi)).toHaveLength(2);
    expect(p.html.match(/<\/script/gi)).toHaveLength(2);
    expect(p.html.match(/<style/gi)).toHaveLength(1);
    expect(p.html.match(/<\/style/gi)).toHaveLength(1);
    expect(p.html).not.toMatch(/<(img|iframe|marquee|svg onload)/i);
    // onerror= only where its `<` was escaped: inside text or an attribute value, never an attribute of its own.
    const before = [...p.html.matchAll(/onerror=/g)].map((m) => p.html.slice(m.index - 16, m.index));
    expect(before.filter((b) => !/(&lt;|\\u003c)img src=x $/.test(b))).toEqual([]);
    expect(before.length).toBeGreaterThan(0);
  });

  it('shows the hostile strings as text and attribute values, exactly as the dump holds them', () => {
    const node = select(p.els, 'g', { 'data-node': HOSTILE.node })[0]!;
    expect(node.attrs['data-blocker']).toBe('unhealthy');
    expect(select(p.els, 'g', { 'data-node': HOSTILE.node2 })[0]!.attrs['data-blocker']).toBe('do-not-disrupt');
    expect(select(p.els, 'figure', { class: 'nodepool', 'data-nodepool': HOSTILE.pool })).toHaveLength(1);
    expect(select(p.els, 'option', { value: HOSTILE.pool })).toHaveLength(1);
    const texts = p.els.map((e) => e.text);
    for (const s of [HOSTILE.node, HOSTILE.condition, HOSTILE.log]) expect(texts.some((t) => t.includes(s))).toBe(true);
    const unhealthy = select(p.els, 'article', { 'data-rule': 'node-unhealthy-not-repaired' })[0]!;
    expect(unhealthy.attrs['data-nodepool']).toBe(HOSTILE.pool);
    expect(select(descendants(unhealthy), 'span', { class: 'object' })[0]!.text).toBe(`Node ${HOSTILE.node}`);
    // The rules whose inputs the dump lacks are listed with their reasons.
    const notEvaluated = select(p.els, 'details', { id: 'not-evaluated' })[0]!;
    expect(p.report.notEvaluated.length).toBeGreaterThan(0);
    expect(select(descendants(notEvaluated), 'li').map((li) => li.text)).toEqual(p.report.notEvaluated.map((n) => `${n.ruleId}: ${n.reason}`));
    // The embedded data keeps every string intact and ends only where the page ends it.
    expect(JSON.parse(select(p.els, 'script', { id: 'report-data' })[0]!.text)).toEqual(JSON.parse(JSON.stringify(p.report)));
  });
});

describe('the filter script', () => {
  /** The few DOM calls the script makes, over articles given as their data attributes. */
  function runFilters(articles: Array<Record<string, string>>) {
    const listeners: Array<() => void> = [];
    const selects = Object.fromEntries(
      ['severity', 'rule', 'nodepool', 'namespace'].map((k) => [
        `filter-${k}`,
        { value: '', addEventListener: (_: string, f: () => void) => listeners.push(f) },
      ]),
    );
    const count = { textContent: '' };
    const els = articles.map((data) => ({
      hidden: false,
      getAttribute: (name: string) => data[name.replace(/^data-/, '')] ?? null,
      setAttribute(this: { hidden: boolean }) {
        this.hidden = true;
      },
      removeAttribute(this: { hidden: boolean }) {
        this.hidden = false;
      },
    }));
    const document = {
      getElementById: (id: string) => (id === 'finding-count' ? count : selects[id]),
      querySelectorAll: (q: string) => (q === 'article.finding' ? els : []),
    };
    runInNewContext(FILTER_SCRIPT, { document, window: { addEventListener: () => undefined } });
    const set = (id: string, value: string) => {
      selects[`filter-${id}`]!.value = value;
      for (const f of listeners) f();
      return { shown: els.map((e) => !e.hidden), count: count.textContent };
    };
    return { set, initial: { shown: els.map((e) => !e.hidden), count: count.textContent } };
  }

  it('hides what does not match every select, matches one NodePool among several, and counts what is shown', () => {
    const f = runFilters([
      { severity: 'error', rule: 'a', nodepool: 'general data', namespace: '' },
      { severity: 'warning', rule: 'b', nodepool: 'data', namespace: 'web' },
      { severity: 'warning', rule: 'a', nodepool: '', namespace: 'web' },
    ]);
    expect(f.initial).toEqual({ shown: [true, true, true], count: '3 of 3 findings' });
    expect(f.set('nodepool', 'data')).toEqual({ shown: [true, true, false], count: '2 of 3 findings' });
    expect(f.set('nodepool', 'gen')).toEqual({ shown: [false, false, false], count: '0 of 3 findings' });
    expect(f.set('nodepool', '')).toEqual({ shown: [true, true, true], count: '3 of 3 findings' });
    expect(f.set('severity', 'warning')).toEqual({ shown: [false, true, true], count: '2 of 3 findings' });
    expect(f.set('rule', 'a')).toEqual({ shown: [false, false, true], count: '1 of 3 findings' });
    expect(f.set('namespace', 'kube-system')).toEqual({ shown: [false, false, false], count: '0 of 3 findings' });
  });
});
