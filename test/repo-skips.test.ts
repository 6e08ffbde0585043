/**
 * Real repositories hold more than manifests: chart templates, hand-templated files, vendored chart packages,
 * Makefiles, scripts, Terraform, Ansible. fixtures/repos/templates-and-tooling and fixtures/repos/wrapper-chart (their
 * READMEs say what is expected): nothing of that is loaded as an object, each file is named once, tooling is counted
 * in one line, and code scanning hears only about input that could not be read.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldPerFile, isUnreadableInput } from '../src/loaders/skip-summary.js';
import { findTemplateAction } from '../src/loaders/templates.js';
import { FIXTURES, scan } from './support/scan.js';

const TOOLING = join(FIXTURES, 'repos', 'templates-and-tooling');
const WRAPPER = join(FIXTURES, 'repos', 'wrapper-chart');
const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

describe('templates and tooling in a repository', () => {
  it('loads only real objects and names every other file once', async () => {
    const { snapshot, report, findings } = await scan([TOOLING]);
    expect([...snapshot.allObjects()].map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ConfigMap/alertmanager-templates',
      'NodePool/general',
      'PrometheusRule/karpenter-alerts',
    ]);
    expect(findings).toEqual([]);
    const at = (p: string) => join(TOOLING, p);
    expect(report.snapshot.skipped).toEqual([
      {
        source: at('ansible/bootstrap.yml'),
        line: 1,
        reason: 'not a Kubernetes object (no apiVersion/kind; keys: name, hosts, tasks) (and 2 more like it in this file, at lines 6, 11)',
      },
      { source: at('charts/platform-nodes/Chart.yaml'), reason: 'Helm chart metadata, not a Kubernetes object' },
      { source: at('charts/platform-nodes/templates/NOTES.txt'), reason: "unrendered template file (a chart's install notes)" },
      { source: at('charts/platform-nodes/templates/_helpers.tpl'), reason: 'unrendered template file' },
      {
        source: at('charts/platform-nodes/templates/nodepools.yaml'),
        line: 1,
        reason: 'unrendered Helm/Go template: {{- range $name, $pool := .Values.nodePools }} (render it with `helm template` and scan the output)',
      },
      { source: at('charts/platform-nodes/values.yaml'), reason: 'Helm values file, not a Kubernetes object' },
      {
        source: at('hand-templated/gpu-nodepool.yaml'),
        line: 2,
        reason: 'unrendered Helm/Go template: metadata.name is "{{ $name }}" (render it with `helm template` and scan the output)',
      },
      {
        source: at('infra/nodeclass.tf'),
        line: 13,
        reason: 'Terraform (HCL) syntax: expected "," or "]" in a list, found "}" (column 1); no resource of this file was read',
      },
      { source: at('nodepools/kustomization.yaml'), reason: 'Kustomize configuration, not a Kubernetes object' },
      { source: at('README.md'), reason: `1 documentation file(s) not read (e.g. ${at('README.md')})` },
      {
        source: `${TOOLING}/`,
        reason: `5 file(s) that are not Kubernetes manifests not read: 1 Dockerfile, 1 Makefile, 1 other file that is not YAML, JSON or a log, 1 script or source file, 1 Terraform without Kubernetes resources (e.g. ${at('.gitignore')})`,
      },
      {
        source: at('charts/platform-nodes/charts/karpenter-1.2.1.tgz'),
        reason: `1 packaged Helm chart(s) (.tgz) inside the scanned directory not opened (e.g. ${at('charts/platform-nodes/charts/karpenter-1.2.1.tgz')}; pass one as an argument to read it)`,
      },
    ]);
  });

  it('a chart package passed explicitly is opened', async () => {
    const tgz = join(TOOLING, 'charts/platform-nodes/charts/karpenter-1.2.1.tgz');
    const { report } = await scan([tgz]);
    expect(report.snapshot.skipped.map((s) => [s.source, s.reason])).toEqual([
      [`${tgz}!karpenter/values.yaml`, "the karpenter chart's own default values (no settings.clusterName, which every install sets): not read"],
      [
        `${tgz}!karpenter/templates/deployment.yaml`,
        'unrendered Helm/Go template: name: {{ .Release.Name }} (render it with `helm template` and scan the output)',
      ],
    ]);
  });

  it('SARIF notifies only the file that was meant to be read and could not be', () => {
    const out = spawnSync(process.execPath, [BIN, 'scan', 'fixtures/repos/templates-and-tooling', '--format', 'sarif'], { cwd: ROOT, encoding: 'utf8' });
    expect(out.status).toBe(0);
    const notes = (
      JSON.parse(out.stdout) as {
        runs: Array<{ invocations: Array<{ toolExecutionNotifications: Array<{ descriptor: { id: string }; message: { text: string } }> }> }>;
      }
    ).runs[0]!.invocations[0]!.toolExecutionNotifications.filter((n) => n.descriptor.id === 'skipped-input');
    expect(notes.map((n) => n.message.text)).toEqual([
      'fixtures/repos/templates-and-tooling/infra/nodeclass.tf:13: Terraform (HCL) syntax: expected "," or "]" in a list, found "}" (column 1); no resource of this file was read.',
    ]);
  });
});

describe('an unrendered template is a file property, rendered Go-template text is data', () => {
  it.each([
    ['{{- if .Values.enabled }}\napiVersion: v1\n', 1],
    ['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n', 4],
    ['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ include \\"x.fullname\\" . }}"\n', 4],
    ['spec:\n  values:\n    - {{ $zone }}\n', 3],
    ['data:\n  cfg: |\n    {{- toYaml .Values.config | nindent 4 }}\n', 3],
  ])('template: %j at line %i', (text, line) => {
    expect(findTemplateAction(text)?.line).toBe(line);
  });

  it.each([
    'metadata:\n  annotations:\n    summary: "{{ $labels.instance }} is down"\n',
    'data:\n  slack.tmpl: |\n    {{ define "x" }}\n    {{- range .Alerts }}{{ .Labels.alertname }}{{ end }}\n    {{ end }}\nkind: ConfigMap\n',
    '# {{ .Values.commented }}\napiVersion: v1\n',
    "spec:\n  template:\n    metadata:\n      name: '{{.path.basename}}'\n",
  ])('data: %j', (text) => {
    expect(findTemplateAction(text)).toBeUndefined();
  });
});

describe('skip entries per file', () => {
  it('the same failure repeated through one file is one entry with where the others are', () => {
    expect(
      foldPerFile([
        { source: 'a.yml', line: 1, reason: 'not a Kubernetes object (no apiVersion/kind; keys: name)' },
        { source: 'a.yml', line: 9, reason: 'not a Kubernetes object (no apiVersion/kind; keys: hosts)' },
        { source: 'a.yml', line: 12, reason: 'YAML: bad indentation' },
        { source: 'b.yml', line: 3, reason: 'not a Kubernetes object (not a mapping)' },
      ]),
    ).toEqual([
      { source: 'a.yml', line: 1, reason: 'not a Kubernetes object (no apiVersion/kind; keys: name) (and 1 more like it in this file, at line 9)' },
      { source: 'a.yml', line: 12, reason: 'YAML: bad indentation' },
      { source: 'b.yml', line: 3, reason: 'not a Kubernetes object (not a mapping)' },
    ]);
  });

  it('code scanning hears about unreadable input, not about tooling', () => {
    expect(isUnreadableInput({ source: 'x.yaml', line: 3, reason: 'YAML: bad indentation' })).toBe(true);
    expect(
      isUnreadableInput({
        source: 'x.tf',
        line: 3,
        reason: 'Terraform (HCL) syntax: unterminated string started on line 3 (column 9); no resource of this file was read',
      }),
    ).toBe(true);
    expect(isUnreadableInput({ source: 'README.md', reason: '3 documentation file(s) not read (e.g. README.md)' })).toBe(false);
    expect(isUnreadableInput({ source: 'Chart.yaml', reason: 'Helm chart metadata, not a Kubernetes object' })).toBe(false);
  });
});

describe('a wrapper chart, and a chart merely named karpenter', () => {
  it("reads the dependency's values under its alias as the controller's configuration, and not a NodePool chart's values", async () => {
    const { findings, report, snapshot } = await scan([WRAPPER]);
    expect(snapshot.controller.version).toEqual([1, 2, 1]);
    expect(findings.map((f) => [f.ruleId, f.severity, f.object.kind, f.object.name, f.evidence.map((e) => [e.path, e.source])])).toEqual([
      [
        'spot-without-interruption-queue',
        'warning',
        'HelmValues',
        'charts/cluster-autoscaling/values.yaml',
        [
          ['/spec/template/spec/requirements/0', `${WRAPPER}/nodepools/spot.yaml:13`],
          ['/values/autoscaler/settings/interruptionQueue', `${WRAPPER}/charts/cluster-autoscaling/values.yaml:2`],
          [null, `${WRAPPER}/charts/cluster-autoscaling/Chart.yaml:10`],
        ],
      ],
    ]);
    expect(findings[0]!.message).toContain('autoscaler.settings.interruptionQueue not set');
    expect(report.snapshot.skipped).toEqual([
      { source: `${WRAPPER}/charts/karpenter/Chart.yaml`, reason: 'Helm chart metadata, not a Kubernetes object' },
      {
        source: `${WRAPPER}/charts/karpenter/templates/ec2nodeclass.yaml`,
        line: 6,
        reason: 'unrendered Helm/Go template: role: {{ .Values.nodeClass.role }} (render it with `helm template` and scan the output)',
      },
      {
        source: `${WRAPPER}/charts/karpenter/values.yaml`,
        reason:
          "values of a chart named karpenter whose templates render no controller (it neither is nor depends on Karpenter's chart): not the controller's configuration",
      },
      { source: `${WRAPPER}/README.md`, reason: `1 documentation file(s) not read (e.g. ${WRAPPER}/README.md)` },
    ]);
  });
});

describe('an object whose judged fields are templates', () => {
  const one = async (yaml: string) => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-tpl-'));
    writeFileSync(join(dir, 'x.yaml'), yaml);
    return scan([dir]);
  };

  it('a NodePool limit written as "{{ $cpu }}" is a template, not a limit', async () => {
    const { snapshot, report } = await one('apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  limits:\n    cpu: "{{ $cpu }}"\n');
    expect([...snapshot.allObjects()]).toEqual([]);
    expect(report.snapshot.skipped.map((s) => s.reason)).toEqual([
      'unrendered Helm/Go template: spec.limits.cpu is "{{ $cpu }}" (render it with `helm template` and scan the output)',
    ]);
  });

  it('a Deployment whose nodeSelector is templated is skipped; one whose container args hold Go templates is not', async () => {
    const base =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: a\nspec:\n  selector: { matchLabels: { app: api } }\n  template:\n    metadata: { labels: { app: api } }\n    spec:\n';
    const selected = await one(`${base}      nodeSelector:\n        tier: "{{ $tier }}"\n      containers: [{ name: c, image: i }]\n`);
    expect(selected.report.snapshot.skipped.map((s) => s.reason)).toEqual([
      'unrendered Helm/Go template: pod nodeSelector.tier is "{{ $tier }}" (render it with `helm template` and scan the output)',
    ]);
    const args = await one(`${base}      containers: [{ name: c, image: i, args: ["--format={{.Time}} {{.Msg}}"] }]\n`);
    expect([...args.snapshot.allObjects()].map((o) => o.metadata.name)).toEqual(['api']);
  });
});
