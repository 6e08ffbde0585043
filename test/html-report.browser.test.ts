/**
 * The HTML report as a support engineer opens it: `karpdoctor scan fixtures/mixed-incidents --format html -o FILE`
 * from the built CLI, opened from disk in Debian's chromium (test/support/browser.ts). It must show the JSON report's
 * findings, filter them, draw its charts, stay inside the file (no network, no console error) and run nothing from a
 * hostile dump. One browser serves the whole file. Without chromium the file is skipped (the run prints what to
 * install), except under CI=true, where it fails with that.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { openFile, startBrowser, type ChromiumSession, type OpenedPage } from './support/browser.js';
import { skipWithout } from './support/machine-tools.js';

// Globals of the page, for the callbacks that run inside it (the project's lib has no DOM types, on purpose for src/).
declare const document: any;
declare const window: { __pwned?: unknown };

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const MIXED = join(ROOT, 'fixtures', 'mixed-incidents');

const NODE = {
  reclaim: 'ip-10-20-52-18.us-west-2.compute.internal', // NodePool reports: a do-not-disrupt pod, then a PDB, hold it
  uninitialized: 'ip-10-20-120-33.us-west-2.compute.internal', // NodePool general: the CCM taint never went away
  interrupted: 'ip-10-20-81-37.us-west-2.compute.internal', // NodePool data: drained for a scheduled change
  unknown: 'ip-10-20-88-140.us-west-2.compute.internal', // NodePool general: Ready=Unknown for 2h6m, not repaired
};
// Karpenter nodes per NodePool in nodes.json (gpu-spot has none; the two system nodes belong to no pool).
const NODES_PER_POOL = { general: 6, data: 4, reports: 1 };
const POOLS = ['data', 'general', 'gpu-spot', 'reports'];

interface JsonFinding {
  ruleId: string;
  severity: string;
  object: { kind: string; namespace: string | null; name: string };
}

/** The report the way a user writes it; the scans here find errors (exit 1) and write the file all the same. */
function scanTo(input: string, format: 'html' | 'json', out: string) {
  const r = spawnSync(process.execPath, [BIN, 'scan', input, '--no-crd-download', '--format', format, '-o', out], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  expect(r.status, r.stderr).toBe(1);
  return readFileSync(out, 'utf8');
}

interface Shown {
  rule: string;
  severity: string;
  pools: string[];
  namespace: string;
  /** Not filtered out: no `hidden` attribute, and the layout agrees (no stylesheet overrides `hidden`). */
  visible: boolean;
}

const shown = (page: Page): Promise<Shown[]> =>
  page.$$eval('#findings article.finding', (articles) =>
    articles.map((a) => ({
      rule: a.getAttribute('data-rule') ?? '',
      severity: a.getAttribute('data-severity') ?? '',
      pools: (a.getAttribute('data-nodepool') ?? '').split(' ').filter(Boolean),
      namespace: a.getAttribute('data-namespace') ?? '',
      visible: !a.hasAttribute('hidden') && a.checkVisibility(),
    })),
  );
const visibleRules = async (page: Page) =>
  (await shown(page))
    .filter((s) => s.visible)
    .map((s) => s.rule)
    .sort();
const count = (page: Page) => page.locator('#finding-count').innerText();
const sorted = (list: string[]) => [...list].sort();

let session: ChromiumSession | undefined;
let work: string | undefined;
let json: { findings: JsonFinding[] };
let report: OpenedPage;

/**
 * Set up once, when the first test asks: the browser, the two reports, the page. A failure there (no chromium, no HTML
 * format) then fails every test with its message, where a failing beforeAll would only mark them skipped.
 */
let setup: Promise<void> | undefined;
// The first test of each group waits for it: chromium and two scans, on a machine others share.
const SETUP_TIMEOUT = 120_000;
const ready = () =>
  (setup ??= (async () => {
    session = await startBrowser();
    work = mkdtempSync(join(tmpdir(), 'karpdoctor-html-'));
    scanTo(MIXED, 'html', join(work, 'report.html'));
    json = JSON.parse(scanTo(MIXED, 'json', join(work, 'report.json'))) as typeof json;
    report = await openFile(session, join(work, 'report.html'));
  })());

afterAll(async () => {
  await setup?.catch(() => undefined);
  await session?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(skipWithout('chromium'))('HTML report of fixtures/mixed-incidents in chromium', () => {
  it(
    'shows exactly the findings of the JSON report, all of them before any filter is used',
    async () => {
      await ready();
      expect(json.findings).toHaveLength(13);
      const articles = await shown(report.page);
      expect(articles.map((a) => `${a.rule} ${a.severity}`).sort()).toEqual(json.findings.map((f) => `${f.ruleId} ${f.severity}`).sort());
      expect(articles.every((a) => a.visible)).toBe(true);
      expect(await count(report.page)).toBe('13 of 13 findings');
      // Each finding's namespace is its object's: the namespace filter lists exactly these.
      expect(articles.map((a) => `${a.rule} ${a.namespace}`).sort()).toEqual(json.findings.map((f) => `${f.ruleId} ${f.object.namespace ?? ''}`).sort());
    },
    SETUP_TIMEOUT,
  );

  it('offers each rule, NodePool and namespace of the findings in its filter', async () => {
    await ready();
    const options = (id: string) =>
      report.page.$$eval(`#${id} option`, (list) => list.map((o) => (o as unknown as { value: string }).value).filter((v) => v !== ''));
    expect(sorted(await options('filter-rule'))).toEqual(sorted([...new Set(json.findings.map((f) => f.ruleId))]));
    expect(sorted(await options('filter-namespace'))).toEqual(['data', 'finance']);
    expect(sorted(await options('filter-severity'))).toEqual(expect.arrayContaining(['error', 'warning']));
    const pools = new Set((await shown(report.page)).flatMap((a) => a.pools));
    expect(sorted(await options('filter-nodepool'))).toEqual(expect.arrayContaining([...pools]));
    expect([...pools]).toEqual(expect.arrayContaining(['data', 'general', 'gpu-spot', 'reports']));
  });

  it('filters by severity, rule, NodePool and namespace, alone and together, and counts what is left', async () => {
    await ready();
    const page = report.page;
    const set = async (filters: Partial<Record<'severity' | 'rule' | 'nodepool' | 'namespace', string>>) => {
      for (const name of ['severity', 'rule', 'nodepool', 'namespace'] as const) await page.selectOption(`#filter-${name}`, filters[name] ?? '');
    };
    const errors = json.findings.filter((f) => f.severity === 'error').map((f) => f.ruleId);

    await set({ severity: 'error' });
    expect(await visibleRules(page)).toEqual(sorted(errors));
    expect(await count(page)).toBe(`${errors.length} of 13 findings`);

    await set({ rule: 'pdb-blocks-eviction' });
    expect(await visibleRules(page)).toEqual(['pdb-blocks-eviction']);
    expect(await count(page)).toBe('1 of 13 findings');

    await set({ nodepool: 'gpu-spot' });
    expect(await visibleRules(page)).toEqual(['insufficient-capacity-all-offerings', 'nodeclaim-launch-loop']);
    await set({ nodepool: 'general' });
    const general = await visibleRules(page);
    expect(general).toEqual(
      expect.arrayContaining(['node-unhealthy-not-repaired', 'undeclared-startup-taint', 'unhealthy-node-freezes-budget', 'uninitialized-taint-lingering']),
    );
    expect(general).toEqual(sorted((await shown(page)).filter((a) => a.pools.includes('general')).map((a) => a.rule)));
    expect(general).not.toContain('nodeclaim-launch-loop');

    await set({ namespace: 'data' });
    expect(await visibleRules(page)).toEqual(['pv-zone-unreachable']);
    expect(await count(page)).toBe('1 of 13 findings');

    await set({ severity: 'error', nodepool: 'gpu-spot' });
    expect(await visibleRules(page)).toEqual(['insufficient-capacity-all-offerings']);
    expect(await count(page)).toBe('1 of 13 findings');
    await set({ severity: 'warning', namespace: 'data' });
    expect(await visibleRules(page)).toEqual([]);
    expect(await count(page)).toBe('0 of 13 findings');

    await set({});
    expect(await visibleRules(page)).toHaveLength(13);
    expect(await count(page)).toBe('13 of 13 findings');
  });

  it('draws every node of each NodePool as CPU and memory bars, coloured by its first blocker', async () => {
    await ready();
    const pools = await report.page.$$eval('#nodes figure.nodepool', (figures) =>
      figures.map((f) => ({
        pool: f.getAttribute('data-nodepool'),
        nodes: [...f.querySelectorAll('svg g.node')].map((g) => ({
          node: g.getAttribute('data-node'),
          blocker: g.getAttribute('data-blocker'),
          title: g.querySelector('title')?.textContent ?? '',
          bars: [...g.querySelectorAll('rect.bar')].map((r) => ({
            resource: r.classList.contains('cpu') ? 'cpu' : r.classList.contains('memory') ? 'memory' : r.getAttribute('class'),
            requested: Number(r.getAttribute('data-requested')),
            allocatable: Number(r.getAttribute('data-allocatable')),
          })),
        })),
      })),
    );
    for (const [pool, n] of Object.entries(NODES_PER_POOL)) expect(pools.find((p) => p.pool === pool)?.nodes, pool).toHaveLength(n);
    const nodes = pools.flatMap((p) => p.nodes);
    for (const node of nodes) {
      expect(node.blocker).toMatch(/^(do-not-disrupt|pdb|nominated|budget|uninitialized|unhealthy|none)$/);
      expect(node.title).toContain(node.node);
      expect(node.bars.map((b) => b.resource).sort()).toEqual(['cpu', 'memory']);
      for (const bar of node.bars) expect(bar.allocatable > 0 && bar.requested >= 0, `${node.node} ${bar.resource}`).toBe(true);
    }
    const reclaim = nodes.find((n) => n.node === NODE.reclaim)!;
    expect(reclaim.blocker).toBe('do-not-disrupt');
    // The fixture's README: 20% of its CPU is requested.
    const cpu = reclaim.bars.find((b) => b.resource === 'cpu')!;
    expect(Math.round((100 * cpu.requested) / cpu.allocatable)).toBe(20);
    expect(nodes.find((n) => n.node === NODE.uninitialized)?.blocker).toBe('uninitialized');
    expect(nodes.find((n) => n.node === NODE.unknown)?.blocker).toBe('unhealthy');
  });

  it('draws the disruption budget of each NodePool hour by hour over 24 hours, with what uses it now', async () => {
    await ready();
    const budgets = await report.page.$$eval('#budgets figure.budget', (figures) =>
      figures.map((f) => ({
        pool: f.getAttribute('data-nodepool'),
        allowed: [...f.querySelectorAll('svg rect.allowed')].map((r) => ({
          reason: r.getAttribute('data-reason'),
          hour: Number(r.getAttribute('data-hour')),
          allowed: Number(r.getAttribute('data-allowed')),
        })),
        inUse: [...f.querySelectorAll('svg rect.in-use')].map((r) => Number(r.getAttribute('data-count'))),
      })),
    );
    expect(budgets.map((b) => b.pool).sort()).toEqual(POOLS);
    const hours = Array.from({ length: 24 }, (_, h) => h);
    for (const b of budgets) {
      expect(sorted([...new Set(b.allowed.map((a) => a.hour))].map(String)), b.pool!).toEqual(sorted(hours.map(String)));
      for (const a of b.allowed) {
        expect(a.reason).toMatch(/^(Underutilized|Empty|Drifted|all)$/);
        expect(Number.isInteger(a.allowed) && a.allowed >= 0).toBe(true);
      }
      expect(b.inUse.length, b.pool!).toBeGreaterThan(0);
    }
    // The budget trap of incident 3: general's one allowed disruption ("10%" of its nodes) is held by the unhealthy node.
    const general = budgets.find((b) => b.pool === 'general')!;
    expect(new Set(general.allowed.map((a) => a.allowed))).toEqual(new Set([1]));
    expect(general.inUse).toEqual([1]);
  });

  it("draws a finding's object on a time axis with its events, log records and the finding where its evidence starts", async () => {
    await ready();
    const timelines = await report.page.$$eval('#findings article.finding svg.timeline', (svgs) =>
      svgs.map((svg) => ({
        rule: svg.closest('article')?.getAttribute('data-rule'),
        object: svg.getAttribute('data-object') ?? '',
        marks: [...svg.querySelectorAll('g.mark')].map((g) => ({
          type: g.getAttribute('data-type') ?? '',
          time: g.getAttribute('data-time') ?? '',
          // Records at (nearly) the same time may share a mark.
          count: Number(g.getAttribute('data-count') ?? 1),
          title: g.querySelector('title')?.textContent ?? '',
        })),
      })),
    );
    expect(timelines.length).toBeGreaterThan(0);
    for (const t of timelines) {
      expect(t.marks.length, t.object).toBeGreaterThan(0);
      for (const m of t.marks) {
        expect(m.type).toMatch(/^(event|log|condition|created|deleted|taint|finding)$/);
        expect(m.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
        expect(m.title.trim()).not.toBe('');
      }
    }
    const interrupted = timelines.find((t) => t.rule === 'interruption-drained-stateful-node')!;
    expect(interrupted.object).toBe(`Node//${NODE.interrupted}`);
    const marked = (type: string, text: string) => interrupted.marks.some((m) => m.type === type && m.title.includes(text));
    expect(marked('event', 'InstanceUnhealthy')).toBe(true);
    expect(marked('event', 'TerminatingOnInterruption')).toBe(true);
    expect(marked('log', 'initiating delete from interruption message')).toBe(true);
    expect(marked('taint', 'karpenter.sh/disrupted')).toBe(true);
    // The leader's three records about it: "initiating delete from interruption message", "annotated nodeclaim", "tainted node".
    expect(interrupted.marks.filter((m) => m.type === 'log').reduce((n, m) => n + m.count, 0)).toBe(3);
    // The InstanceUnhealthy event and the interruption log record are where its evidence starts.
    const finding = interrupted.marks.filter((m) => m.type === 'finding').map((m) => Date.parse(m.time));
    expect(finding).toEqual([Date.parse('2025-06-18T09:26:12Z')]);
  });

  it('stays inside the file: no network request, no other file, no console error, no dialog', async () => {
    await ready();
    expect(session!.refused).toEqual([]);
    expect(session!.requests.filter((url) => url.startsWith(`file:`))).toEqual([report.url]);
    expect(session!.requests.filter((url) => !/^(file|data):/.test(url))).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.dialogs).toEqual([]);
  });

  it('shows every finding and chart with JavaScript switched off', async () => {
    await ready();
    const off = await openFile(session!, join(work!, 'report.html'), { javaScript: false });
    expect((await shown(off.page)).filter((a) => a.visible)).toHaveLength(13);
    expect(await off.page.locator('#nodes figure.nodepool g.node').count()).toBe(11);
    expect(await off.page.locator('#budgets figure.budget').count()).toBe(POOLS.length);
    expect(off.errors).toEqual([]);
    await off.page.close();
  });
});

// Names, labels and messages of a customer's dump are attacker-controlled. html-page's fixtures/hostile-markup puts
// markup in every slot a dump has, with alert() canaries; the copy of mixed-incidents below renames objects that
// keep their incidents, so findings, filters and charts carry the names, with a window.__pwned canary.
const HOSTILE: Record<string, string> = {
  reports: 'reports"><img/src=x/onerror=alert(document.domain)>',
  'statement-renderer': 'statement-renderer<script>window.__pwned=1</script>',
  'gpu-spot': 'gpu-spot</style><script>window.__pwned=2</script><style>',
  'ip-10-20-52-18': "ip-10-20-52-18</title></svg><svg/onload='window.__pwned=3'>",
};

/** Rename in every file of the copy, JSON-escaped where the file is JSON (the .json lists and the JSON log lines). */
function hostileCopy(dir: string) {
  cpSync(MIXED, dir, { recursive: true });
  const walk = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(join(d, f)).isDirectory() ? walk(join(d, f)) : [join(d, f)]));
  for (const file of walk(dir)) {
    const json = /\.(json|txt)$/.test(file);
    let text = readFileSync(file, 'utf8');
    for (const [name, token] of Object.entries(HOSTILE))
      text = text.replace(new RegExp(`\\b${name}\\b`, 'g'), json ? JSON.stringify(token).slice(1, -1) : token);
    writeFileSync(file, text);
  }
}

/** What the page holds that the report never writes: embedding elements, inline handlers, links out of the file. */
const injected = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('*')].flatMap((e: any) => [
      ...(/^(IMG|IFRAME|OBJECT|EMBED|LINK|BASE|META REFRESH)$/.test(e.tagName) ? [e.tagName] : []),
      ...[...e.attributes]
        .filter((a: any) => /^on/i.test(a.name) || (/(^|:)(src|href|action)$/i.test(a.name) && !/^(#|data:)/.test(a.value)))
        .map((a: any) => `${e.tagName} ${a.name}=${a.value}`),
    ]),
  );

describe.skipIf(skipWithout('chromium'))('HTML report of dumps whose names, labels and messages carry markup', () => {
  let markup: OpenedPage;
  let renamed: OpenedPage;
  let hostile: Promise<void> | undefined;
  const hostileReady = () =>
    (hostile ??= (async () => {
      await ready();
      const dir = work!;
      scanTo(join(ROOT, 'fixtures', 'hostile-markup'), 'html', join(dir, 'markup.html'));
      markup = await openFile(session!, join(dir, 'markup.html'));
      hostileCopy(join(dir, 'hostile'));
      scanTo(join(dir, 'hostile'), 'html', join(dir, 'renamed.html'));
      renamed = await openFile(session!, join(dir, 'renamed.html'));
    })());

  it(
    'runs none of it: no script, dialog, handler, embedded element or request',
    async () => {
      await hostileReady();
      for (const opened of [markup, renamed]) {
        expect(await opened.page.evaluate(() => window.__pwned), opened.url).toBeUndefined();
        expect(opened.dialogs, opened.url).toEqual([]);
        expect(opened.errors, opened.url).toEqual([]);
        expect(await injected(opened.page), opened.url).toEqual([]);
        const scripts = await opened.page.evaluate(() => document.querySelectorAll('script:not([type="application/json"])').length);
        expect(scripts, opened.url).toBe(1);
      }
      expect(session!.refused).toEqual([]);
      expect(session!.requests.filter((url) => !/^(file|data):/.test(url))).toEqual([]);
    },
    SETUP_TIMEOUT,
  );

  it('shows the names as text and filters on them like on any other', async () => {
    await hostileReady();
    const page = renamed.page;
    expect(await visibleRules(page)).toHaveLength(13);
    const text = await page.locator('#findings').textContent();
    for (const token of Object.values(HOSTILE)) expect(text).toContain(token);
    await page.selectOption('#filter-nodepool', HOSTILE['gpu-spot']!);
    expect(await visibleRules(page)).toEqual(['insufficient-capacity-all-offerings', 'nodeclaim-launch-loop']);
    expect(await count(page)).toBe('2 of 13 findings');
    expect(renamed.errors).toEqual([]);
  });
});
