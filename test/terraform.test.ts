/**
 * Kubernetes objects declared in Terraform (fixtures/repos/terraform, its README lists what is expected): the objects
 * as read, their `.tf` lines, the values only Terraform knows, the skip list, and a whole scan of the repository.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTerraform } from '../src/loaders/readers/terraform.js';
import { UNKNOWN_VALUE } from '../src/kube/types.js';
import { FIXTURES, scan } from './support/scan.js';

const REPO = join(FIXTURES, 'repos', 'terraform');
const read = (file: string) => readTerraform(readFileSync(join(REPO, file), 'utf8'), file);
const U = UNKNOWN_VALUE;

describe('Terraform reader on the fixture repository', () => {
  it('kubectl_manifest heredocs and yamlencode become objects at the .tf line, computed values unknown', () => {
    const { objects, skipped, hasKubernetes } = read('karpenter.tf');
    expect(hasKubernetes).toBe(true);
    expect(skipped).toEqual([]);
    expect(objects.map((o) => o.object)).toEqual([
      {
        apiVersion: 'karpenter.k8s.aws/v1',
        kind: 'EC2NodeClass',
        metadata: { name: 'default' },
        spec: {
          role: U,
          amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
          subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': U } }],
          securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': U } }],
          tags: { Team: 'platform', ClusterName: U },
        },
      },
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'general' },
        spec: {
          template: {
            metadata: { labels: { 'workload-tier': 'general' } },
            spec: {
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
              requirements: [
                { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
                { key: 'karpenter.k8s.aws/instance-category', operator: 'In', values: ['c', 'm', 'r'] },
              ],
            },
          },
          disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '2m' },
        },
      },
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'batch' },
        spec: {
          template: {
            metadata: { labels: U },
            spec: {
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: U },
              requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
              taints: [{ key: 'batch', value: 'true', effect: 'NoSchedule' }],
            },
          },
          limits: U,
          disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '10m' },
        },
      },
    ]);
    // The object starts at its apiVersion line inside the heredoc; a yamlencode object at its opening brace.
    expect(objects.map((o) => [o.provenance.source, o.provenance.line])).toEqual([
      ['karpenter.tf', 5],
      ['karpenter.tf', 29],
      ['karpenter.tf', 60],
    ]);
    expect(objects[0]!.provenance.unknown).toEqual([
      { pointer: '/spec/role', expression: '${local.node_role}', line: 10 },
      { pointer: '/spec/subnetSelectorTerms/0/tags/karpenter.sh~1discovery', expression: '${local.cluster_name}', line: 15 },
      { pointer: '/spec/securityGroupSelectorTerms/0/tags/karpenter.sh~1discovery', expression: '${local.cluster_name}', line: 18 },
      { pointer: '/spec/tags/ClusterName', expression: '${local.cluster_name}', line: 21 },
    ]);
    expect(objects[1]!.provenance.unknown).toBeUndefined();
    expect(objects[2]!.provenance.unknown).toEqual([
      { pointer: '/spec/template/metadata/labels', expression: 'merge(local.tags, { "workload-tier" = "batch" })', line: 69 },
      { pointer: '/spec/template/spec/nodeClassRef/name', expression: 'var.environment == "prod" ? "default" : "cheap"', line: 75 },
      { pointer: '/spec/limits', expression: 'var.batch_limits', line: 89 },
    ]);
    // Field lines (and columns, after the heredoc's stripped indent) for the findings to cite.
    expect(objects[1]!.provenance.fields!['/spec/disruption/consolidateAfter']).toEqual([52, 9]);
    expect(objects[2]!.provenance.fields!['/spec/disruption/consolidationPolicy']).toEqual([91, 9]);
  });

  it('typed kubernetes_storage_class_v1 and an HCL kubernetes_manifest are StorageClasses', () => {
    const { objects, skipped } = read('storage.tf');
    expect(skipped).toEqual([]);
    expect(objects.map((o) => [o.object, o.provenance.line, o.provenance.unknown])).toEqual([
      [
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'gp3', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
          provisioner: 'ebs.csi.aws.com',
          reclaimPolicy: 'Delete',
          allowVolumeExpansion: true,
          parameters: { type: 'gp3', encrypted: 'true' },
        },
        1,
        undefined,
      ],
      [
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'io2' },
          provisioner: 'ebs.csi.aws.com',
          volumeBindingMode: U,
          parameters: { type: 'io2', iopsPerGB: '50' },
        },
        20,
        [{ pointer: '/volumeBindingMode', expression: 'var.io2_binding_mode', line: 27 }],
      ],
    ]);
    expect(objects[0]!.provenance.fields!['/provisioner']).toEqual([9, 3]);
  });

  it('files without Kubernetes resources are tooling; a computed manifest is named once per file', () => {
    for (const f of ['main.tf', 'variables.tf', 'versions.tf', 'modules/karpenter/variables.tf'])
      expect(read(f)).toEqual({ objects: [], skipped: [], hasKubernetes: false });
    // The helm_release of the karpenter chart is the controller's configuration: its version, its values (computed here).
    expect(read('modules/karpenter/main.tf')).toEqual({
      objects: [
        {
          object: {
            apiVersion: 'karpdoctor.io/v1',
            kind: 'HelmValues',
            metadata: { name: 'helm_release.karpenter' },
            chart: { name: 'karpenter', source: 'modules/karpenter/main.tf', version: '1.2.1', versionLine: 7 },
            values: { settings: { clusterName: UNKNOWN_VALUE, interruptionQueue: UNKNOWN_VALUE } },
          },
          provenance: expect.objectContaining({
            source: 'modules/karpenter/main.tf',
            line: 2,
            unknown: [
              { pointer: '/values/settings/clusterName', expression: 'var.cluster_name', line: 12 },
              { pointer: '/values/settings/interruptionQueue', expression: 'var.queue_name', line: 13 },
            ],
          }),
        },
      ],
      hasKubernetes: true,
      skipped: [
        {
          source: 'modules/karpenter/main.tf',
          line: 19,
          reason:
            '1 Terraform Kubernetes resource(s) not read: kubernetes_manifest.extra_nodepools (manifest = yamldecode(file("${path.module}/nodepools/${each.value}")) is computed by Terraform)',
        },
      ],
    });
  });
});

describe('Terraform reader on other shapes', () => {
  it('<<YAML keeps columns, a computed name is shown as written, override_namespace applies', () => {
    const tf = [
      'resource "kubectl_manifest" "team" {',
      '  override_namespace = "payments"',
      '  yaml_body = <<YAML',
      'apiVersion: policy/v1',
      'kind: PodDisruptionBudget',
      'metadata:',
      '  name: "${var.team}-api"',
      'spec:',
      '  minAvailable: ${var.min}',
      '  selector: { matchLabels: { app: api } }',
      'YAML',
      '}',
    ].join('\n');
    const { objects } = readTerraform(tf, 'team.tf');
    expect(objects[0]!.object).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: '${var.team}-api', namespace: 'payments' },
      spec: { minAvailable: U, selector: { matchLabels: { app: 'api' } } },
    });
    expect(objects[0]!.provenance).toMatchObject({
      line: 4,
      unknown: [
        { pointer: '/metadata/name', expression: '${var.team}-api', line: 7 },
        { pointer: '/spec/minAvailable', expression: '${var.min}', line: 9 },
      ],
    });
    expect(objects[0]!.provenance.fields!['/spec/minAvailable']).toEqual([9, 3]);
  });

  it('kubernetes_manifest with yamldecode of a heredoc, and merge() of literal objects', () => {
    const tf = [
      'resource "kubernetes_manifest" "nc" {',
      '  manifest = yamldecode(<<-EOT',
      '    apiVersion: karpenter.k8s.aws/v1',
      '    kind: EC2NodeClass',
      '    metadata: { name: gpu }',
      '    spec: { amiFamily: AL2023 }',
      '  EOT',
      '  )',
      '}',
      'resource "kubectl_manifest" "np" {',
      '  yaml_body = jsonencode({',
      '    apiVersion = "karpenter.sh/v1", kind = "NodePool"',
      '    metadata   = { name = "m" }',
      '    spec       = { template = { metadata = { labels = merge({ a = "1" }, { b = "2" }) } } }',
      '  })',
      '}',
    ].join('\n');
    const { objects, skipped } = readTerraform(tf, 'x.tf');
    expect(skipped).toEqual([]);
    expect(objects.map((o) => [o.object, o.provenance.line])).toEqual([
      [{ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'gpu' }, spec: { amiFamily: 'AL2023' } }, 3],
      [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'm' }, spec: { template: { metadata: { labels: { a: '1', b: '2' } } } } }, 11],
    ]);
  });

  it('what only Terraform can produce is named, one entry for the file', () => {
    const tf = [
      'resource "kubectl_manifest" "a" {',
      '  yaml_body = templatefile("${path.module}/nodepool.yaml.tpl", { name = "x" })',
      '}',
      'resource "kubectl_manifest" "b" {',
      '  yaml_body = <<-YAML',
      '    apiVersion: karpenter.sh/v1',
      '    kind: NodePool',
      '    %{ if var.spot }',
      '    metadata: { name: spot }',
      '    %{ endif }',
      '  YAML',
      '}',
      'resource "kubectl_manifest" "c" {',
      '  yaml_body = yamlencode({ apiVersion = "v1", kind = local.kind, metadata = { name = "q" } })',
      '}',
      'resource "kubernetes_service_account_v1" "sa" {',
      '  metadata { name = "karpenter" }',
      '}',
    ].join('\n');
    expect(readTerraform(tf, 'infra/k8s.tf')).toEqual({
      objects: [],
      hasKubernetes: true,
      skipped: [
        {
          source: 'infra/k8s.tf',
          line: 1,
          reason:
            '3 Terraform Kubernetes resource(s) not read: kubectl_manifest.a (yaml_body = templatefile("${path.module}/nodepool.yaml.tpl", { name =… is computed by Terraform); ' +
            'kubectl_manifest.b (yaml_body uses %{ } template directives, which only Terraform evaluates); kubectl_manifest.c (its apiVersion or kind is computed by Terraform)',
        },
        {
          source: 'infra/k8s.tf',
          reason:
            'Terraform kubernetes_service_account_v1 resource(s) not read (only kubectl_manifest, kubernetes_manifest, kubernetes_storage_class and kubernetes_namespace are)',
        },
      ],
    });
  });

  it.each([
    ['resource "kubectl_manifest" "a" {\n  yaml_body = <<YAML\nkind: NodePool\n', 2, 'heredoc <<YAML started on line 2 is never closed with YAML'],
    ['resource "kubectl_manifest" "a" {\n  yaml_body = "x"\n', 3, 'unexpected end of file: a block is not closed with "}"'],
    ['resource "kubectl_manifest" "a" {\n  yaml_body = { a = 1 b = 2 }\n}\n', 2, 'expected a newline, "," or "}" after an object item, found "b = 2 }"'],
  ])('malformed HCL is one entry with the file and line: %#', (tf, line, message) => {
    const { objects, skipped } = readTerraform(tf, 'broken.tf');
    expect(objects).toEqual([]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ source: 'broken.tf', line });
    expect(skipped[0]!.reason).toMatch(
      new RegExp(`^Terraform \\(HCL\\) syntax: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(column \\d+\\); no resource of this file was read$`),
    );
  });

  it('YAML that does not parse inside a heredoc is named at its .tf line', () => {
    const tf = ['resource "kubectl_manifest" "a" {', '  yaml_body = <<-YAML', '    kind: NodePool', '    metadata:', '      name: [x', '  YAML', '}'].join(
      '\n',
    );
    const { skipped } = readTerraform(tf, 'a.tf');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toMatch(/^1 Terraform Kubernetes resource\(s\) not read: kubectl_manifest\.a \(its YAML does not parse at line [56]: /);
  });
});

describe('a scan of the Terraform repository', () => {
  it('judges what is known, says what was not judged and why, and lists the files it did not read once', async () => {
    const { findings, run, report } = await scan([REPO]);
    expect(findings.map((f) => [f.ruleId, f.severity, `${f.object.kind}/${f.object.name}`, f.evidence.map((e) => e.source)])).toEqual([
      // The version is known (chart 1.2.1 of the helm_release): cited as the verdict's version evidence.
      [
        'storageclass-immediate-binding',
        'warning',
        'StorageClass/gp3',
        [`${REPO}/storage.tf:1`, `${REPO}/storage.tf:9`, `${REPO}/modules/karpenter/main.tf:7`],
      ],
      ['consolidation-disabled-for-underused-nodes', 'info', 'NodePool/batch', [`${REPO}/karpenter.tf:91`, `${REPO}/karpenter.tf:84`]],
      ['nodepool-without-limits', 'info', 'NodePool/general', [`${REPO}/karpenter.tf:33`]],
    ]);
    expect(run.notEvaluatedFor.filter((n) => n.object)).toEqual([
      {
        ruleId: 'storageclass-immediate-binding',
        object: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', namespace: null, name: 'io2' },
        reason: `not evaluated for StorageClass io2: volumeBindingMode is computed when applied (var.io2_binding_mode at ${REPO}/storage.tf:27), not known from the files`,
      },
      {
        ruleId: 'nodepool-without-limits',
        object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'batch' },
        reason: `not evaluated for NodePool batch: spec.limits is computed when applied (var.batch_limits at ${REPO}/karpenter.tf:89), not known from the files`,
      },
      {
        ruleId: 'pending-pod-no-nodepool-fits',
        object: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'reports', name: 'report-builder' },
        reason: `not evaluated for Deployment reports/report-builder: it depends on NodePool batch, whose spec.template.metadata.labels is computed when applied (merge(local.tags, { "workload-tier" = "batch" }) at ${REPO}/karpenter.tf:69), not known from the files`,
      },
    ]);
    // The node class name only Terraform knows is named as such, never as a placeholder.
    expect(run.notEvaluatedFor.filter((n) => !n.object).map((n) => [n.ruleId, n.reason])).toEqual([
      ['nodepool-missing-nodeclass', `NodePool batch (${REPO}/karpenter.tf): the EC2NodeClass's name is computed when applied, not known from the files`],
    ]);
    expect(report.snapshot.skipped).toEqual([
      {
        source: `${REPO}/modules/karpenter/main.tf`,
        line: 19,
        reason: expect.stringMatching(/^1 Terraform Kubernetes resource\(s\) not read: kubernetes_manifest\.extra_nodepools /),
      },
      {
        source: `${REPO}/README.md`,
        reason: `1 documentation file(s) not read (e.g. ${REPO}/README.md)`,
      },
      {
        source: `${REPO}/`,
        reason: `4 file(s) that are not Kubernetes manifests not read: 4 Terraform without Kubernetes resources (e.g. ${REPO}/main.tf)`,
      },
    ]);
  });

  it('the built CLI: exit status, JSON and SARIF locations on the .tf lines', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'karpdoctor.js');
    const cwd = join(import.meta.dirname, '..');
    const json = spawnSync(process.execPath, [bin, 'scan', 'fixtures/repos/terraform', '--format', 'json', '--fail-on', 'warning'], { cwd, encoding: 'utf8' });
    expect(json.status).toBe(1);
    expect(json.stderr).toBe('');
    const out = JSON.parse(json.stdout) as { summary: Record<string, number>; notEvaluated: Array<{ ruleId: string; object?: unknown }> };
    expect(out.summary).toEqual({ error: 0, warning: 1, info: 2 });
    expect(out.notEvaluated.filter((n) => n.object).map((n) => n.ruleId)).toEqual([
      'storageclass-immediate-binding',
      'nodepool-without-limits',
      'pending-pod-no-nodepool-fits',
    ]);
    const sarif = spawnSync(process.execPath, [bin, 'scan', 'fixtures/repos/terraform', '--format', 'sarif'], { cwd, encoding: 'utf8' });
    const results = (
      JSON.parse(sarif.stdout) as {
        runs: Array<{
          results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }>;
        }>;
      }
    ).runs[0]!.results;
    expect(results.map((r) => [r.ruleId, r.locations[0]!.physicalLocation.artifactLocation.uri, r.locations[0]!.physicalLocation.region.startLine])).toEqual([
      ['storageclass-immediate-binding', 'fixtures/repos/terraform/storage.tf', 1],
      ['consolidation-disabled-for-underused-nodes', 'fixtures/repos/terraform/karpenter.tf', 91],
      ['nodepool-without-limits', 'fixtures/repos/terraform/karpenter.tf', 33],
    ]);
  });
});

describe('hostile Terraform', () => {
  it('every prefix of the fixture files is read or named with a line, never a crash', () => {
    for (const f of ['karpenter.tf', 'storage.tf', 'modules/karpenter/main.tf']) {
      const text = readFileSync(join(REPO, f), 'utf8');
      for (let n = 0; n < text.length; n += 7) {
        const { skipped } = readTerraform(text.slice(0, n), f);
        for (const s of skipped) expect(s.reason).not.toMatch(/internal error|RangeError|TypeError/);
      }
    }
  });

  it('absurd nesting is a syntax error, not a stack overflow', () => {
    const deep = `resource "kubernetes_manifest" "x" {\n  manifest = ${'['.repeat(5000)}${']'.repeat(5000)}\n}\n`;
    expect(readTerraform(deep, 'deep.tf').skipped[0]!.reason).toMatch(/^Terraform \(HCL\) syntax: values nested deeper than 200 levels/);
    const bomb = [
      'resource "kubectl_manifest" "a" {',
      '  yaml_body = <<YAML',
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'YAML',
      '}',
    ].join('\n');
    expect(readTerraform(bomb, 'bomb.tf').skipped[0]!.reason).toMatch(
      /^1 Terraform Kubernetes resource\(s\) not read: kubectl_manifest\.a \(its YAML could not be read: /,
    );
  });
});

describe('a yaml_body written as a quoted string', () => {
  it('is one .tf line: the object and all its fields are cited there', () => {
    const tf = [
      'resource "kubectl_manifest" "sc" {',
      '  yaml_body = "apiVersion: storage.k8s.io/v1\\nkind: StorageClass\\nmetadata:\\n  name: st1\\nprovisioner: ebs.csi.aws.com\\n"',
      '}',
    ].join('\n');
    const [o] = readTerraform(tf, 'sc.tf').objects;
    expect(o!.object).toEqual({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'st1' }, provisioner: 'ebs.csi.aws.com' });
    expect(o!.provenance.line).toBe(2);
    expect(o!.provenance.fields!['/provisioner']).toEqual([2, 15]);
  });
});

describe('the HCL real modules are written in (fixtures/hcl/kitchen-sink.tf)', () => {
  const text = readFileSync(join(FIXTURES, 'hcl', 'kitchen-sink.tf'), 'utf8');
  it.each([
    ['LF', text],
    ['CRLF', text.replace(/\n/g, '\r\n')],
  ])('providers, dynamic blocks, for expressions, directives, legacy labels and a count-ed kubectl_manifest (%s)', (_eol, tf) => {
    const { objects, skipped } = readTerraform(tf, 'kitchen-sink.tf');
    expect(skipped).toEqual([]);
    expect(objects.map((o) => [o.object.metadata.name, o.provenance.line, o.provenance.unknown])).toEqual([
      ['karpenter', 57, undefined],
      [
        'default',
        64,
        [
          { pointer: '/spec/template/spec/requirements/0/values', expression: '${jsonencode(var.categories)}', line: 74 },
          { pointer: '/spec/limits/cpu', expression: '${var.cpu_limit}', line: 80 },
        ],
      ],
    ]);
  });
});

describe('data "kubectl_file_documents"', () => {
  it('its literal multi-document content is read, each document at its own .tf line', () => {
    const tf = [
      'data "kubectl_file_documents" "pools" {',
      '  content = <<-YAML',
      '    apiVersion: karpenter.sh/v1',
      '    kind: NodePool',
      '    metadata: { name: a }',
      '    ---',
      '    apiVersion: karpenter.sh/v1',
      '    kind: NodePool',
      '    metadata: { name: b }',
      '  YAML',
      '}',
      'resource "kubectl_manifest" "pools" {',
      '  for_each  = data.kubectl_file_documents.pools.manifests',
      '  yaml_body = each.value',
      '}',
    ].join('\n');
    const { objects, skipped } = readTerraform(tf, 'pools.tf');
    expect(objects.map((o) => [o.object.metadata.name, o.provenance.line])).toEqual([
      ['a', 3],
      ['b', 7],
    ]);
    // The resource that applies them is computed; the objects were read from the data source.
    expect(skipped).toEqual([
      {
        source: 'pools.tf',
        line: 12,
        reason: '1 Terraform Kubernetes resource(s) not read: kubectl_manifest.pools (yaml_body = each.value is computed by Terraform)',
      },
    ]);
  });
});

describe('validation against the CRDs meets unknown values', () => {
  it('a placeholder of the wrong type is no rejection, and other rules still judge the object', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'karpdoctor.js');
    const cwd = join(import.meta.dirname, '..');
    const out = spawnSync(
      process.execPath,
      [bin, 'scan', 'fixtures/repos/terraform', '--crds', 'fixtures/rules/karpenter-object-rejected/release', '--format', 'json', '--fail-on', 'none'],
      {
        cwd,
        encoding: 'utf8',
      },
    );
    expect(out.status).toBe(0);
    const report = JSON.parse(out.stdout) as {
      findings: Array<{ ruleId: string; object: { name: string } }>;
      notEvaluated: Array<{ ruleId: string; reason: string; object?: { name: string } }>;
    };
    expect(report.findings.map((f) => [f.ruleId, f.object.name])).toEqual([
      ['storageclass-immediate-binding', 'gp3'],
      ['consolidation-disabled-for-underused-nodes', 'batch'],
      ['nodepool-without-limits', 'general'],
    ]);
    expect(report.notEvaluated.filter((n) => n.ruleId === 'karpenter-object-rejected' && n.object).map((n) => n.reason)).toEqual([
      'not evaluated for NodePool batch: spec.template.metadata.labels is computed when applied (merge(local.tags, { "workload-tier" = "batch" }) at fixtures/repos/terraform/karpenter.tf:69), not known from the files',
      'not evaluated for NodePool batch: spec.limits is computed when applied (var.batch_limits at fixtures/repos/terraform/karpenter.tf:89), not known from the files',
    ]);
  });
});
