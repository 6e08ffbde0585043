/**
 * Manifest mode on Karpenter's Helm values (fixtures/helm-values-repo, its README lists what fires and why): a wrapper
 * chart's values file, a Flux HelmRelease, an Argo CD Application with `helm.values` as a string, a values file no
 * Chart.yaml claims — and the precedence of a rendered controller Deployment over any values.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../src/engine/findings.js';
import { reportContext } from '../src/reporters/report.js';
import { renderSarif } from '../src/reporters/sarif.js';
import { RULES } from '../src/rules/index.js';
import { coalesce, renderKarpenterChart } from '../src/snapshot/karpenter-chart.js';
import { copyFixture, gateScan } from './support/gate.js';
import { runSarifValidator, skipWithout } from './support/machine-tools.js';
import { reportOf } from './support/gate-view.js';
import { FIXTURES, scan } from './support/scan.js';
import { evidenceOf } from './rules/fixture-helpers.js';

const REPO = join(FIXTURES, 'helm-values-repo');
const ALL = RULES.map((r) => r.meta.id);
const SPOT = 'spot-without-interruption-queue';
const PLACEMENT = 'karpenter-controller-on-karpenter-node';
const NTH = 'node-termination-handler-conflict';

/** The 1-based line of the one line of `file` that is exactly `text`. */
function lineOf(file: string, text: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const hits = lines.flatMap((l, i) => (l === text ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`"${text}" is on ${hits.length} lines of ${file}`);
  return hits[0]!;
}

const brief = (f: Finding) => `${f.ruleId} ${f.severity} ${f.object.kind} ${f.object.namespace ?? ''}/${f.object.name}`;

function tmpCopy(dir: string): string {
  const to = mkdtempSync(join(tmpdir(), 'karpdoctor-helm-'));
  cpSync(join(REPO, dir), to, { recursive: true });
  return to;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not contain ${JSON.stringify(from)}`);
  writeFileSync(file, text.replace(from, to));
}

type Scan = Awaited<ReturnType<typeof scan>>;

describe('wrapper chart: values.yaml next to a Chart.yaml depending on karpenter', () => {
  const dir = join(REPO, 'wrapper-chart');
  const values = join(dir, 'karpenter/values.yaml');
  const chart = join(dir, 'karpenter/Chart.yaml');
  let r: Scan;
  const finding = (id: string) => r.findings.find((f) => f.ruleId === id)!;
  beforeAll(async () => {
    r = await scan([dir], { only: ALL });
  });

  it('reads the values as the controller configuration: version from the dependency, gates from settings.featureGates', () => {
    expect(r.report.snapshot.skipped).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.6.3');
    expect(r.report.snapshot.featureGates).toEqual({ NodeRepair: false, SpotToSpotConsolidation: true });
    // A values file is no cluster object: not counted, not "present".
    expect(r.report.snapshot.counts).toEqual({ EC2NodeClass: 1, NodePool: 2 });
    const ctx = reportContext(r.snapshot, r.run, RULES);
    expect(ctx.karpenterVersionSource).toBe(`chart version: dependency karpenter 1.6.3 in ${chart}:${lineOf(chart, '    version: 1.6.3')}`);
    expect(ctx.manifestMode).toBe(true);
    expect(r.snapshot.controller.env).toMatchObject({ CLUSTER_NAME: 'data-euc1', LOG_LEVEL: 'info' });
    expect(r.snapshot.controller.interruptionQueue).toBeUndefined();
  });

  it('the whole catalog finds exactly the README findings, both on the values file', () => {
    expect(r.findings.map(brief).sort()).toEqual([
      `${PLACEMENT} warning HelmValues /karpenter/values.yaml`,
      `${SPOT} warning HelmValues /karpenter/values.yaml`,
    ]);
    for (const f of r.findings)
      expect(f.object).toEqual({ apiVersion: 'karpdoctor.io/v1', kind: 'HelmValues', namespace: null, name: 'karpenter/values.yaml' });
  });

  it('spot: names the values and the missing key, cites the settings: line, and says which file and key to edit', () => {
    const f = finding(SPOT);
    expect(f.message).toContain(
      'Karpenter Helm values (karpenter/values.yaml, chart karpenter 1.6.3) has no interruption queue (karpenter.settings.interruptionQueue not set), but 2 NodePools allow spot capacity (general: In [spot, on-demand], spark: In [spot])',
    );
    expect(anchorOf(f).pointer).toBe('/values/karpenter/settings/interruptionQueue');
    const [missing] = evidenceOf(f, 'HelmValues', '/values/karpenter/settings/interruptionQueue');
    expect(missing).toMatchObject({
      value: null,
      note: 'karpenter.settings.interruptionQueue is not set',
      source: `${values}:${lineOf(values, '  settings:')}`,
    });
    expect(missing!.source).toBe(`${values}:15`);
    const [gates] = evidenceOf(f, 'HelmValues', '/values/karpenter/settings/featureGates');
    expect(gates).toMatchObject({ value: 'SpotToSpotConsolidation=true', source: `${values}:${lineOf(values, '    featureGates:')}` });
    // The chart version is a line of the Chart.yaml, which holds no object.
    expect(f.evidence.find((e) => e.note?.startsWith('Karpenter v1.6.3 from chart'))).toMatchObject({ object: null, value: '1.6.3', source: `${chart}:9` });
    expect(f.fix).toContain('In karpenter/values.yaml, set karpenter.settings.interruptionQueue to YOUR_QUEUE_NAME');
    expect(f.fix).not.toContain('helm upgrade');
  });

  it("placement: the values' own nodeSelectorTerms replace the chart default and admit NodePool general", () => {
    const f = finding(PLACEMENT);
    expect(f.message).toContain(
      "Karpenter Helm values (karpenter/values.yaml, chart karpenter 1.6.3): its pod template may schedule onto Karpenter-managed nodes (NodePool general) — its karpenter.affinity replaces the chart's default node affinity and drops its karpenter.sh/nodepool DoesNotExist term",
    );
    expect(f.related).toEqual([{ kind: 'NodePool', name: 'general' }]);
    const pointer = '/values/karpenter/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution';
    expect(anchorOf(f).pointer).toBe(pointer);
    const [affinity] = evidenceOf(f, 'HelmValues', pointer);
    expect(affinity!.source).toBe(`${values}:${lineOf(values, '    nodeAffinity:') + 1}`);
    expect(affinity!.value).toEqual({
      nodeSelectorTerms: [
        {
          matchExpressions: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
            { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
          ],
        },
      ],
    });
    // The chart's default nodeSelector is in no input file: a value, not a line of the values that lack it.
    expect(f.evidence.find((e) => e.note === 'nodeSelector (the chart default)')).toMatchObject({
      object: null,
      value: { 'kubernetes.io/os': 'linux' },
      source: 'derived',
    });
    expect(f.fix).toMatch(/^1\. In karpenter\/values\.yaml, restore the chart's required node affinity under karpenter\.affinity/);
  });

  let gated: ReturnType<typeof gateScan> | undefined;
  const gate = () => (gated ??= gateScan([dir], { only: ALL }));

  it('CI gate and SARIF: each finding at its key in values.yaml', { timeout: 60_000 }, async () => {
    const g = await gate();
    const at = (id: string) => g.active.find((x) => x.finding.ruleId === id)!;
    expect(at(SPOT).location).toMatchObject({ fsPath: values, line: 15, column: 3, endLine: 15 });
    expect(at(PLACEMENT).location).toMatchObject({ fsPath: values, line: 22, column: 7 });
    const run = JSON.parse(renderSarif(reportOf(g.report, g.gate), g.gate, RULES, { baseDir: dir })).runs[0];
    const result = (id: string) => run.results.find((x: { ruleId: string }) => x.ruleId === id);
    expect(result(SPOT).locations[0].physicalLocation).toMatchObject({
      artifactLocation: { uri: 'karpenter/values.yaml' },
      region: { startLine: 15, startColumn: 3 },
    });
    expect(result(PLACEMENT).locations[0].physicalLocation.region).toMatchObject({ startLine: 22, startColumn: 7 });
    const related = result(SPOT).relatedLocations.map(
      (l: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }) =>
        `${l.physicalLocation.artifactLocation.uri}:${l.physicalLocation.region?.startLine}`,
    );
    expect(related).toContain('karpenter/Chart.yaml:9');
  });

  it.skipIf(skipWithout('sarifValidator'))(
    'SARIF with values-file locations passes the official validator (spec/cli.md § SARIF quality)',
    { timeout: 60_000 },
    async () => {
      const g = await gate();
      const log = join(mkdtempSync(join(tmpdir(), 'karpdoctor-helm-sarif-')), 'helm.sarif');
      writeFileSync(log, renderSarif(reportOf(g.report, g.gate), g.gate, RULES, { baseDir: dir }));
      runSarifValidator(['validate', log, '-o', `${log}.report`, '--log', 'ForceOverwrite']);
      expect(JSON.parse(readFileSync(`${log}.report`, 'utf8')).runs[0].results ?? []).toEqual([]);
    },
  );

  it('a config ignore entry (kind HelmValues, name = path in the tree) suppresses a finding on a values file', async () => {
    const g = await gateScan([dir], {
      only: [SPOT, PLACEMENT],
      config:
        'ignore:\n  - rule: spot-without-interruption-queue\n    kind: HelmValues\n    name: karpenter/values.yaml\n    reason: queue lands with INFRA-3180\n',
    });
    expect(g.suppressed.map((x) => x.finding.ruleId)).toEqual([SPOT]);
    expect(g.active.map((x) => x.finding.ruleId)).toEqual([PLACEMENT]);
  });

  it("older eksctl's settings.interruptionQueueName: the finding says the chart ignores it and points at it", async () => {
    const copy = tmpCopy('wrapper-chart');
    edit(join(copy, 'karpenter/values.yaml'), '    clusterName: data-euc1\n', '    clusterName: data-euc1\n    interruptionQueueName: data-euc1\n');
    const e = await scan([copy], { only: [SPOT, NTH] });
    expect(e.findings.map((f) => f.ruleId)).toEqual([SPOT]);
    const f = e.findings[0]!;
    expect(f.message).toContain(
      '(karpenter.settings.interruptionQueue not set; karpenter.settings.interruptionQueueName is set, but chart 1.6.3 has no such key (older eksctl wrote it, eksctl#7697))',
    );
    expect(anchorOf(f).pointer).toBe('/values/karpenter/settings/interruptionQueueName');
    const [ignored] = evidenceOf(f, 'HelmValues', '/values/karpenter/settings/interruptionQueueName');
    expect(ignored).toMatchObject({ value: 'data-euc1', source: `${join(copy, 'karpenter/values.yaml')}:17` });
    expect(f.fix).toContain('and remove karpenter.settings.interruptionQueueName (the chart does not read it)');
  });

  it('near misses: with settings.interruptionQueue set, and with `affinity: {}` (Helm keeps the default), nothing fires', async () => {
    const copy = tmpCopy('wrapper-chart');
    const file = join(copy, 'karpenter/values.yaml');
    edit(file, '    clusterName: data-euc1\n', '    clusterName: data-euc1\n    interruptionQueue: Karpenter-data-euc1\n');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, `${text.slice(0, text.indexOf('  # INFRA-3177'))}  affinity: {}\n`);
    const e = await scan([copy], { only: [SPOT, PLACEMENT] });
    expect(e.notEvaluated).toEqual([]);
    expect(e.findings).toEqual([]);
    expect(e.snapshot.controller.interruptionQueue).toBe('Karpenter-data-euc1');
    expect(e.snapshot.controller.env.INTERRUPTION_QUEUE).toBe('Karpenter-data-euc1');
  });
});

describe('Flux HelmRelease: spec.values with settings.interruptionQueue (near miss)', () => {
  const dir = join(REPO, 'flux-helmrelease');
  const file = join(dir, 'clusters/staging-euw1/karpenter/release.yaml');

  it('is silent across the catalog, and reads version, gates, queue and namespace from the release', async () => {
    const r = await scan([dir], { only: ALL });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated.map((n) => n.ruleId)).not.toContain(SPOT);
    expect(r.notEvaluated.map((n) => n.ruleId)).not.toContain(PLACEMENT);
    expect(r.report.snapshot.karpenterVersion).toBe('1.6.3');
    expect(r.report.snapshot.featureGates).toMatchObject({ NodeRepair: true });
    const c = r.snapshot.controller;
    expect(c.label).toBe('Karpenter Helm values (HelmRelease flux-system/karpenter, chart karpenter 1.6.3)');
    expect(c.interruptionQueue).toBe('Karpenter-staging-euw1');
    expect(c.interruptionQueueAt).toMatchObject({ path: '/spec/values/settings/interruptionQueue', where: 'spec.values.settings.interruptionQueue' });
    expect(c.helm!.release.namespace).toBe('kube-system');
    expect(c.versionEvidence).toBe(
      `chart version: 1.6.3 in spec.chart.spec.version of HelmRelease flux-system/karpenter (${file}:${lineOf(file, 'kind: HelmRelease') - 1})`,
    );
    // The chart's affinity stays: the values only add a nodeSelector beside it.
    expect(c.helm!.podSpec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'eks.amazonaws.com/nodegroup': 'system' });
  });

  it('without the queue it fires on the HelmRelease at its settings: line; the ignore annotation suppresses it there', async () => {
    const copy = tmpCopy('flux-helmrelease');
    const release = join(copy, 'clusters/staging-euw1/karpenter/release.yaml');
    edit(release, '      interruptionQueue: Karpenter-staging-euw1\n', '');
    const g = await gateScan([copy], { only: [SPOT] });
    expect(g.findings.map(brief)).toEqual([`${SPOT} warning HelmRelease flux-system/karpenter`]);
    const f = g.findings[0]!;
    expect(f.message).toContain(
      'Karpenter Helm values (HelmRelease flux-system/karpenter, chart karpenter 1.6.3) has no interruption queue (spec.values.settings.interruptionQueue not set)',
    );
    const settingsLine = lineOf(release, '    settings:');
    expect(evidenceOf(f, 'HelmRelease', '/spec/values/settings/interruptionQueue')[0]!.source).toBe(`${release}:${settingsLine}`);
    expect(g.active[0]!.location).toMatchObject({ fsPath: release, line: settingsLine, column: 5 });
    expect(f.fix).toContain('In HelmRelease flux-system/karpenter, set spec.values.settings.interruptionQueue to YOUR_QUEUE_NAME');

    edit(
      release,
      '  name: karpenter\n  namespace: flux-system\nspec:\n  interval: 30m',
      '  name: karpenter\n  namespace: flux-system\n  annotations:\n    karpdoctor.io/ignore: "spot-without-interruption-queue: staging runs on-demand only in practice"\nspec:\n  interval: 30m',
    );
    const s = await gateScan([copy], { only: [SPOT] });
    expect(s.active).toEqual([]);
    expect(s.suppressed[0]!.suppression).toMatchObject({ kind: 'inSource', origin: 'annotation karpdoctor.io/ignore on HelmRelease flux-system/karpenter' });
  });

  it("spec.chartRef to an OCIRepository: the version is the repository's tag", async () => {
    const copy = tmpCopy('flux-helmrelease');
    const release = join(copy, 'clusters/staging-euw1/karpenter/release.yaml');
    edit(
      release,
      '  chart:\n    spec:\n      chart: karpenter\n      version: "1.6.3"\n      sourceRef:\n        kind: HelmRepository\n        name: karpenter\n        namespace: flux-system\n',
      '  chartRef:\n    kind: OCIRepository\n    name: karpenter\n',
    );
    writeFileSync(
      join(copy, 'clusters/staging-euw1/karpenter/oci.yaml'),
      'apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata:\n  name: karpenter\n  namespace: flux-system\nspec:\n  interval: 12h\n  url: oci://public.ecr.aws/karpenter/karpenter\n  ref:\n    tag: 1.7.1\n',
    );
    const r = await scan([copy], { only: [SPOT] });
    expect(r.report.snapshot.karpenterVersion).toBe('1.7.1');
    expect(r.snapshot.controller.versionAt).toMatchObject({ path: '/spec/ref/tag' });
    expect(r.snapshot.controller.versionAt!.object.kind).toBe('OCIRepository');
  });
});

describe('Argo CD Application: helm.values as a YAML string, with the v0.31 settings.aws key', () => {
  const dir = join(REPO, 'argocd-application');
  const app = join(dir, 'argocd/applications/karpenter.yaml');

  it('fires on the Application, at its values key, naming the key the chart ignores', async () => {
    const r = await scan([dir], { only: ALL });
    expect(r.findings.map(brief)).toEqual([`${SPOT} warning Application argocd/karpenter`]);
    const f = r.findings[0]!;
    expect(f.message).toContain(
      'Karpenter Helm values (Application argocd/karpenter, chart karpenter 1.5.2) has no interruption queue (settings.interruptionQueue in spec.source.helm.values not set; settings.aws.interruptionQueueName in spec.source.helm.values is set, but chart 1.5.2 ignores settings.aws.* (flattened into settings.* in v0.32))',
    );
    const valuesLine = lineOf(app, '      values: |');
    expect(anchorOf(f).pointer).toBe('/spec/source/helm/values');
    const [missing, ignored] = evidenceOf(f, 'Application', '/spec/source/helm/values');
    expect(missing).toMatchObject({ value: null, source: `${app}:${valuesLine}` });
    expect(ignored).toMatchObject({
      value: 'karpenter-ops-use2',
      source: `${app}:${valuesLine}`,
      note: expect.stringContaining('the chart reads settings.interruptionQueue'),
    });
    expect(evidenceOf(f, 'Application', '/spec/source/targetRevision')[0]).toMatchObject({
      value: '1.5.2',
      source: `${app}:${lineOf(app, '    targetRevision: 1.5.2')}`,
    });
    expect(r.snapshot.controller.helm!.release.namespace).toBe('karpenter');
    const g = await gateScan([dir], { only: [SPOT] });
    expect(g.active[0]!.location).toMatchObject({ fsPath: app, line: valuesLine, column: 7 });
  });

  it('helm.valuesObject and helm.parameters: a parameter sets the queue, and pointers follow it', async () => {
    const copy = tmpCopy('argocd-application');
    const file = join(copy, 'argocd/applications/karpenter.yaml');
    const text = readFileSync(file, 'utf8');
    const start = text.indexOf('      # Carried over');
    const end = text.indexOf('  destination:');
    writeFileSync(
      file,
      `${text.slice(0, start)}      valuesObject:\n        settings:\n          clusterName: ops-use2\n      parameters:\n        - name: settings.interruptionQueue\n          value: karpenter-ops-use2\n        - name: settings.featureGates.nodeRepair\n          value: "true"\n${text.slice(end)}`,
    );
    const r = await scan([copy], { only: [SPOT] });
    expect(r.findings).toEqual([]);
    const c = r.snapshot.controller;
    expect(c.interruptionQueue).toBe('karpenter-ops-use2');
    expect(c.interruptionQueueAt).toMatchObject({ path: '/spec/source/helm/parameters/0/value', where: 'helm.parameters settings.interruptionQueue' });
    expect(c.featureGates).toEqual({ NodeRepair: true });
    expect(c.helm!.release.pointer(['settings', 'clusterName'])).toBe('/spec/source/helm/valuesObject/settings/clusterName');
  });
});

describe('values kept without a Chart.yaml: read as the karpenter chart values, joined to the release that names them', () => {
  it('Terraform `values = [file("${path.module}/…")]`: the helm_release gets the file, its queue cited in the file', async () => {
    const dir = join(REPO, 'values-without-chart');
    const values = join(dir, 'terraform/helm/values-karpenter.yaml');
    const r = await scan([dir], { only: [SPOT, PLACEMENT] });
    expect(r.report.snapshot.skipped.map((s) => s.source)).not.toContain(values);
    expect(r.snapshot.controller.object?.metadata.name).toBe('helm_release.karpenter');
    expect(r.report.snapshot.karpenterVersion).toBe('1.6.3');
    const c = r.snapshot.controller;
    expect(c.interruptionQueue).toBe('Karpenter-tools-apse2');
    expect(c.interruptionQueueAt).toMatchObject({
      path: '/values/settings/interruptionQueue',
      where: 'settings.interruptionQueue in terraform/helm/values-karpenter.yaml',
    });
    expect(c.interruptionQueueAt!.object.metadata.name).toBe('terraform/helm/values-karpenter.yaml');
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([]);
  });

  it('the same file without the queue: the finding is on the helm_release, its evidence at the line of the file', async () => {
    const copy = tmpCopy('values-without-chart');
    const values = join(copy, 'terraform/helm/values-karpenter.yaml');
    edit(values, '  interruptionQueue: Karpenter-tools-apse2\n', '');
    const r = await scan([copy], { only: [SPOT] });
    expect(r.findings.map(brief)).toEqual([`${SPOT} warning HelmValues /helm_release.karpenter`]);
    expect(r.findings[0]!.message).toContain('settings.interruptionQueue in terraform/helm/values-karpenter.yaml not set');
    expect(evidenceOf(r.findings[0]!, 'HelmValues', '/values/settings/interruptionQueue')[0]!.source).toBe(`${values}:${lineOf(values, 'settings:')}`);
  });

  it('Argo CD multi-source `$values/karpenter/values.yaml`: read from the repository, no finding, nothing skipped', async () => {
    const dir = join(REPO, 'argocd-multi-source');
    const r = await scan([dir], { only: ALL });
    expect(r.findings).toEqual([]);
    expect(r.report.snapshot.skipped).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.5.2');
    const c = r.snapshot.controller;
    expect(c.label).toBe('Karpenter Helm values (Application argocd/karpenter, chart karpenter 1.5.2)');
    expect(c.note).toBeUndefined();
    expect(c.interruptionQueue).toBe('lab-use1-karpenter');
    expect(c.interruptionQueueAt).toMatchObject({ path: '/values/settings/interruptionQueue', where: 'settings.interruptionQueue in karpenter/values.yaml' });
    // The values' nodeSelector is merged beside the chart's.
    expect(c.helm!.podSpec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'lab.example.org/pool': 'addons' });
  });

  it('Argo CD `$values/…` file not among the scanned files: not evaluated, never "no queue"', async () => {
    const dir = join(REPO, 'argocd-multi-source');
    const r = await scan([join(dir, 'argocd'), join(dir, 'nodepools')], { only: [SPOT] });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => `${n.ruleId}: ${n.reason}`)).toEqual([
      `${SPOT}: Application argocd/karpenter (${join(dir, 'argocd/apps/karpenter.yaml')}): spec.sources.0.helm.valueFiles ($values/karpenter/values.yaml) is not in the scanned files and may set settings.interruptionQueue: scan the repository that holds it too`,
    ]);
  });

  it('a file named for Karpenter and installed by `helm -f` (Makefile): its own release, no version, judged', async () => {
    const dir = join(REPO, 'standalone-values');
    const values = join(dir, 'karpenter/karpenter-values.yaml');
    const r = await scan([dir], { only: [SPOT, PLACEMENT] });
    expect(r.report.snapshot.karpenterVersion).toBeNull();
    expect(r.snapshot.controller.label).toBe('Karpenter Helm values (karpenter/karpenter-values.yaml)');
    expect(r.findings.map(brief)).toEqual([`${SPOT} warning HelmValues /karpenter/karpenter-values.yaml`]);
    expect(evidenceOf(r.findings[0]!, 'HelmValues', '/values/settings/interruptionQueue')[0]!.source).toBe(`${values}:${lineOf(values, 'settings:')}`);
  });
});

describe('the chart itself (Chart.yaml name: karpenter): values at the root', () => {
  it('reads them at the root; controller.image.tag gives the version; no node affinity and a pin on a NodePool is an error', async () => {
    const dir = copyFixture('helm-values-repo/wrapper-chart');
    writeFileSync(join(dir, 'karpenter/Chart.yaml'), 'apiVersion: v2\nname: karpenter\nversion: 1.8.1\nappVersion: 1.8.1\n');
    writeFileSync(
      join(dir, 'karpenter/values.yaml'),
      'controller:\n  image:\n    tag: 1.8.0\nsettings:\n  clusterName: data-euc1\n  interruptionQueue: data-euc1\nnodeSelector:\n  karpenter.sh/nodepool: general\naffinity:\n  nodeAffinity: null\n',
    );
    const r = await scan([dir], { only: [SPOT, PLACEMENT] });
    expect(r.report.snapshot.karpenterVersion).toBe('1.8.0');
    expect(r.snapshot.controller.versionEvidence).toBe(`controller.image.tag: 1.8.0 in karpenter/values.yaml (${join(dir, 'karpenter/values.yaml')}:1)`);
    expect(r.findings.map(brief)).toEqual([`${PLACEMENT} error HelmValues /karpenter/values.yaml`]);
    const f = r.findings[0]!;
    expect(f.message).toContain('its pod template can only schedule onto Karpenter-managed nodes (NodePool general): it selects karpenter.sh/nodepool');
    expect(anchorOf(f).pointer).toBe('/values/nodeSelector/karpenter.sh~1nodepool');
    expect(f.fix).toMatch(/^1\. In karpenter\/values\.yaml, remove the karpenter\.sh\/nodepool entry from nodeSelector\./);
    const g = await gateScan([dir], { only: [PLACEMENT] });
    expect(g.active[0]!.location).toMatchObject({ line: 8, column: 3 });
  });
});

describe('values files that do not configure an install of their own', () => {
  it('a vendored copy of the chart: its values.yaml (no settings.clusterName) is the chart defaults, not read', async () => {
    const dir = copyFixture('helm-values-repo/wrapper-chart');
    writeFileSync(join(dir, 'karpenter/Chart.yaml'), 'apiVersion: v2\nname: karpenter\nversion: 1.6.3\nappVersion: 1.6.3\n');
    writeFileSync(join(dir, 'karpenter/values.yaml'), 'replicas: 2\nsettings:\n  clusterName: ""\n  interruptionQueue: ""\n');
    const r = await scan([dir], { only: [SPOT] });
    expect(r.report.snapshot.skipped).toEqual([
      {
        source: join(dir, 'karpenter/values.yaml'),
        reason: "the karpenter chart's own default values (no settings.clusterName, which every install sets): not read",
      },
    ]);
    expect(r.notEvaluated.map((n) => n.ruleId)).toEqual([SPOT]);
  });

  it('several values files for one chart: values.yaml (always applied) is read, the others are listed as not used', async () => {
    const dir = copyFixture('helm-values-repo/wrapper-chart');
    writeFileSync(join(dir, 'karpenter/values-staging.yaml'), 'karpenter:\n  settings:\n    clusterName: data-euc1-staging\n');
    const r = await scan([dir], { only: [SPOT] });
    expect(r.snapshot.controller.label).toBe('Karpenter Helm values (karpenter/values.yaml, chart karpenter 1.6.3)');
    expect(r.report.snapshot.skipped).toEqual([
      {
        source: join(dir, 'karpenter/values-staging.yaml'),
        reason:
          'Karpenter Helm values (karpenter/values-staging.yaml, chart karpenter 1.6.3) not used: the controller settings come from Karpenter Helm values (karpenter/values.yaml, chart karpenter 1.6.3)',
      },
    ]);
  });
});

describe('an environment values file that sets the queue', () => {
  it('values.yaml without a queue plus values-prod.yaml with one: not reported, with a note and the queue read from prod', async () => {
    const dir = copyFixture('helm-values-repo/wrapper-chart');
    const prod = join(dir, 'karpenter/values-prod.yaml');
    writeFileSync(prod, '# helm upgrade … -f values.yaml -f values-prod.yaml\nkarpenter:\n  settings:\n    interruptionQueue: Karpenter-data-euc1\n');
    const r = await scan([dir], { only: [SPOT] });
    expect(r.findings).toEqual([]);
    expect(r.snapshot.controller.interruptionQueue).toBe('Karpenter-data-euc1');
    expect(r.snapshot.controller.interruptionQueueAt).toMatchObject({ path: '/values/karpenter/settings/interruptionQueue' });
    expect(r.snapshot.controller.note).toContain(
      'interruption queue Karpenter-data-euc1 is set only in karpenter/values-prod.yaml, an environment values file',
    );
  });
});

describe('precedence: a rendered controller Deployment wins over values', () => {
  it('gitops-repo: findings cite the Deployment; the values are reported as superseded, not silently dropped', async () => {
    const repo = join(FIXTURES, 'gitops-repo');
    const r = await scan([join(repo, 'karpenter'), join(repo, 'nodepools')], { only: [SPOT, PLACEMENT] });
    expect(r.snapshot.controller.object?.kind).toBe('Deployment');
    expect(r.snapshot.controller.helm).toBeUndefined();
    expect(r.findings.map(brief)).toEqual([`${SPOT} warning Deployment kube-system/karpenter`]);
    // A values file is named by its path below the scanned directory: here that directory is karpenter/ itself.
    expect(r.report.snapshot.skipped).toEqual([
      {
        source: join(repo, 'karpenter/values.yaml'),
        reason: `Karpenter Helm values (values.yaml, chart karpenter 1.6.3) superseded by the rendered controller Deployment kube-system/karpenter (${join(repo, 'karpenter/rendered.yaml')}:239): findings cite what runs`,
      },
    ]);
  });

  it('a HelmRelease next to a rendered Deployment: the Deployment is read, the release listed with its line', async () => {
    const copy = tmpCopy('flux-helmrelease');
    cpSync(join(FIXTURES, 'gitops-repo/karpenter/rendered.yaml'), join(copy, 'rendered.yaml'));
    const r = await scan([copy], { only: [SPOT] });
    expect(r.snapshot.controller.label).toBe('Karpenter controller kube-system/karpenter');
    // The rendered Deployment has no INTERRUPTION_QUEUE: what runs is what counts.
    expect(r.findings.map(brief)).toEqual([`${SPOT} warning Deployment kube-system/karpenter`]);
    const release = join(copy, 'clusters/staging-euw1/karpenter/release.yaml');
    expect(r.report.snapshot.skipped).toContainEqual({
      source: release,
      line: lineOf(release, 'apiVersion: helm.toolkit.fluxcd.io/v2'),
      reason: expect.stringMatching(
        /^Karpenter Helm values \(HelmRelease flux-system\/karpenter, chart karpenter 1\.6\.3\) superseded by the rendered controller Deployment kube-system\/karpenter/,
      ),
    });
  });
});

describe("the chart's rendering of values", () => {
  it('coalesces like Helm: maps merge, lists replace, null deletes', () => {
    const defaults = { a: { b: 1, c: [1, 2] }, d: 'x' };
    expect(coalesce({ a: {} }, defaults)).toEqual({ a: { b: 1, c: [1, 2] }, d: 'x' });
    expect(coalesce({ a: { c: [3] } }, defaults)).toEqual({ a: { b: 1, c: [3] }, d: 'x' });
    expect(coalesce({ a: { b: null }, d: 'y' }, defaults)).toEqual({ a: { c: [1, 2] }, d: 'y' });
    expect(coalesce(null, defaults)).toBeUndefined();
  });

  it("nodeAffinity: null drops the chart affinity's node part; before v0.32 the queue key is settings.aws.interruptionQueueName", () => {
    const dropped = renderKarpenterChart({ affinity: { nodeAffinity: null } }, [1, 6, 3]);
    expect(dropped.podSpec.affinity).toEqual({
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname' }] },
    });
    expect(dropped.placementSet).toEqual(['affinity']);
    const old = renderKarpenterChart({ settings: { aws: { interruptionQueueName: 'q' }, interruptionQueue: 'ignored' } }, [0, 31, 4]);
    expect(old.queue).toEqual({ keys: ['settings', 'aws', 'interruptionQueueName'], value: 'q' });
    expect(old.ignored.map((i) => i.keys.join('.'))).toEqual(['settings.interruptionQueue']);
    const transitional = renderKarpenterChart({ settings: { aws: { interruptionQueueName: 'q' } } }, [0, 32, 1]);
    expect(transitional.queue?.value).toBe('q');
    const env = renderKarpenterChart(
      { settings: { interruptionQueue: '' }, controller: { env: [{ name: 'INTERRUPTION_QUEUE', value: 'from-env' }] } },
      undefined,
    );
    expect(env.queue).toEqual({ keys: ['controller', 'env', '0', 'value'], value: 'from-env' });
  });
});
