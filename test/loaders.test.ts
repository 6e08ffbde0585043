import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import type { LoadResult } from '../src/loaders/types.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'karpdoctor-loaders-'));
});

function write(rel: string, content: string | Buffer): string {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
  return p;
}

/** Every fixture file in the repository whose name matches. */
function fixtureFiles(pattern: RegExp): string[] {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (pattern.test(e)) files.push(p);
    }
  };
  walk(join(import.meta.dirname, '..', 'fixtures'));
  return files;
}

function names(r: LoadResult): string[] {
  return r.objects.map((o) => `${o.object.kind}/${o.object.metadata.name}`);
}

function reasons(r: LoadResult): string[] {
  return r.skipped.map((s) => `${s.source.slice(dir.length + 1)}${s.line ? `:${s.line}` : ''} ${s.reason}`);
}

const POD_ITEM = (name: string) => ({ metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1' }, status: { phase: 'Running' } });

describe('formats', () => {
  it('reads kubectl get -o yaml Lists of mixed kinds, with the line of each item', async () => {
    const p = write(
      'list.yaml',
      [
        'apiVersion: v1',
        'items:',
        '- apiVersion: karpenter.sh/v1',
        '  kind: NodePool',
        '  metadata:',
        '    name: default',
        '- apiVersion: karpenter.k8s.aws/v1',
        '  kind: EC2NodeClass',
        '  metadata:',
        '    name: default',
        'kind: List',
        'metadata:',
        '  resourceVersion: ""',
        '',
      ].join('\n'),
    );
    const r = await loadInputs([p]);
    expect(names(r)).toEqual(['NodePool/default', 'EC2NodeClass/default']);
    expect(r.objects.map((o) => o.provenance.line)).toEqual([3, 7]);
    expect(r.skipped).toEqual([]);
  });

  it('infers kind and apiVersion of typed-list items (cluster-info dump) and records empty lists as present', async () => {
    const p = write(
      'ci/default/pods.json',
      `${JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [POD_ITEM('a')] }, null, 4)}\n`,
    );
    const q = write('ci/default/events.json', '{\n    "kind": "EventList",\n    "apiVersion": "v1",\n    "metadata": {},\n    "items": null\n}\n');
    const r = await loadInputs([p, q]);
    expect(r.objects[0]!.object).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a' } });
    expect(r.listedKinds.has('/Event')).toBe(true);
    expect(r.listedKinds.has('/Pod')).toBe(true);
  });

  it('reads multi-document YAML with leading/trailing separators, comments and empty documents', async () => {
    const p = write(
      'multi.yaml',
      '---\n# a comment-only document\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n--- # trailing comment\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n---\n---\n',
    );
    const r = await loadInputs([p]);
    expect(names(r)).toEqual(['Namespace/a', 'Namespace/b']);
    expect(r.objects.map((o) => o.provenance.line)).toEqual([4, 9]);
    expect(r.skipped).toEqual([]);
  });

  it('reads kubectl -o yaml outputs concatenated without --- ((kubectl get nodes -o yaml; kubectl get pods -A -o yaml) > dump)', async () => {
    const nodes = 'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\nkind: List\nmetadata:\n  resourceVersion: ""\n';
    const pods =
      'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p1\n    namespace: default\nkind: List\nmetadata:\n  resourceVersion: ""\n';
    const deploy = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: karpenter\n  namespace: kube-system\n';
    const p = write('concatenated.yaml', nodes + pods + deploy);
    for (const yamlPath of ['exact', 'fast', 'whole'] as const) {
      const r = await loadInputs([p], { yamlPath });
      expect(names(r), yamlPath).toEqual(['Node/n1', 'Pod/p1', 'Deployment/karpenter']);
      expect(
        r.objects.map((o) => o.provenance.line),
        yamlPath,
      ).toEqual([3, 12, 20]);
      expect(r.skipped, yamlPath).toEqual([]);
    }
  });

  it('reads a concatenated JSON stream of lists', async () => {
    const nodes = JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', items: [{ metadata: { name: 'n1' } }] }, null, 4);
    const pods = JSON.stringify({ apiVersion: 'v1', items: [{ apiVersion: 'v1', kind: 'Pod', ...POD_ITEM('p1') }], kind: 'List' }, null, 4);
    const r = await loadInputs([write('stream.json', `${nodes}\n${pods}\n`)]);
    expect(names(r)).toEqual(['Node/n1', 'Pod/p1']);
  });

  it('reads the cluster-info dump stdout stream: JSON lists with controller log blocks in between', async () => {
    const nodes = JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', items: [{ metadata: { name: 'n1' } }] }, null, 4);
    const pods = JSON.stringify(
      { kind: 'PodList', apiVersion: 'v1', items: [{ metadata: { name: 'karpenter-6b8d5c7f9d-abcde', namespace: 'kube-system' } }] },
      null,
      4,
    );
    const log = [
      '==== START logs for container controller of pod kube-system/karpenter-6b8d5c7f9d-abcde ====',
      '{"level":"INFO","time":"2024-11-02T10:00:00.000Z","logger":"controller","message":"created nodeclaim","commit":"a2875e3","controller":"provisioner","NodePool":{"name":"default"},"NodeClaim":{"name":"default-x"}}',
      '==== END logs for container controller of pod kube-system/karpenter-6b8d5c7f9d-abcde ====',
      '==== START logs for container coredns of pod kube-system/coredns-6f6b679f8f-rgq7r ====',
      '[INFO] plugin/kubernetes: waiting for Kubernetes API before starting server',
      '==== END logs for container coredns of pod kube-system/coredns-6f6b679f8f-rgq7r ====',
    ].join('\n');
    const p = write('stdout-dump.txt', `${nodes}\n${pods}\n${log}\n`);
    const r = await loadInputs([p]);
    expect(names(r)).toEqual(['Node/n1', 'Pod/karpenter-6b8d5c7f9d-abcde']);
    expect(r.logs).toHaveLength(1);
    expect(r.logs[0]).toMatchObject({
      message: 'created nodeclaim',
      pod: { namespace: 'kube-system', name: 'karpenter-6b8d5c7f9d-abcde', container: 'controller' },
    });
    expect(r.logs[0]!.provenance.line).toBe(nodes.split('\n').length + pods.split('\n').length + 2);
    expect(reasons(r)).toEqual([expect.stringMatching(/1 container log\(s\) of pods other than the Karpenter controller not read/)]);
  });

  it('reads YAML appended to a JSON capture (kubectl get -o yaml >> dump.txt) as YAML', async () => {
    const nodes = JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', items: [{ metadata: { name: 'n1' } }] }, null, 4);
    const yaml = [
      'apiVersion: v1',
      'items:',
      '- apiVersion: karpenter.sh/v1',
      '  kind: NodePool',
      '  metadata:',
      '    annotations:',
      '      kubectl.kubernetes.io/last-applied-configuration: |',
      '        {"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"desired-copy"}}',
      '    name: default',
      'kind: List',
      'metadata:',
      '  resourceVersion: ""',
    ].join('\n');
    const p = write('appended.txt', `${nodes}\n${yaml}\n${nodes.replace('n1', 'n2')}\n`);
    const r = await loadInputs([p]);
    expect(names(r)).toEqual(['Node/n1', 'NodePool/default', 'Node/n2']);
    expect(r.objects[1]!.provenance.line).toBe(nodes.split('\n').length + 3);
    expect(r.skipped).toEqual([]);
  });

  it("reads controller logs from a cluster-info dump directory and ignores other pods' logs with one note", async () => {
    write(
      'ci2/kube-system/karpenter-5d4f8b7c9-x2x7q/logs.txt',
      '==== START logs for container controller of pod kube-system/karpenter-5d4f8b7c9-x2x7q ====\n{"level":"INFO","time":"2024-11-02T10:00:00.000Z","logger":"controller","message":"registered nodeclaim","commit":"x"}\n==== END logs for container controller of pod kube-system/karpenter-5d4f8b7c9-x2x7q ====\n',
    );
    write(
      'ci2/kube-system/coredns-1/logs.txt',
      '==== START logs for container coredns of pod kube-system/coredns-1 ====\n[INFO] hello\n==== END logs for container coredns of pod kube-system/coredns-1 ====\n',
    );
    const r = await loadInputs([join(dir, 'ci2')]);
    expect(r.logs.map((l) => l.message)).toEqual(['registered nodeclaim']);
    expect(r.skipped).toHaveLength(1);
    expect(r.skipped[0]!.reason).toMatch(/1 container log\(s\) of pods other than the Karpenter controller not read \(e\.g\. .*coredns-1/);
  });

  it('reads events.k8s.io/v1 events as objects', async () => {
    const p = write(
      'ev.yaml',
      'apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: e\n  namespace: default\nregarding:\n  kind: Node\n  name: n1\nreason: DisruptionBlocked\nnote: Node is nominated for a pending pod\n',
    );
    const r = await loadInputs([p]);
    expect(r.objects[0]!.object.apiVersion).toBe('events.k8s.io/v1');
  });

  it('reads stdin', async () => {
    const r = await loadInputs(['-'], { stdin: Readable.from([Buffer.from('apiVersion: v1\nkind: Node\nmetadata:\n  name: from-stdin\n')]) });
    expect(names(r)).toEqual(['Node/from-stdin']);
    expect(r.objects[0]!.provenance).toEqual({ source: '<stdin>', line: 1 });
  });

  it('drops bulky fields no rule reads at load time', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        namespace: 'd',
        managedFields: [{ manager: 'x' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', keep: 'me' },
      },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            env: [
              { name: 'SECRET_TOKEN', value: 'x' },
              { name: 'FEATURE_GATES', value: 'NodeRepair=true' },
            ],
            livenessProbe: {},
            resources: { requests: { cpu: '1' } },
          },
        ],
      },
    };
    const r = await loadInputs([write('compact.json', JSON.stringify(pod))]);
    const o = r.objects[0]!.object as unknown as typeof pod;
    expect(o.metadata.managedFields).toBeUndefined();
    expect(o.metadata.annotations).toEqual({ keep: 'me' });
    // Array positions survive (evidence points at env/1/value), values other than controller settings do not.
    expect(o.spec.containers[0]).toEqual({
      name: 'c',
      image: 'i',
      env: [{ name: 'SECRET_TOKEN' }, { name: 'FEATURE_GATES', value: 'NodeRepair=true' }],
      resources: { requests: { cpu: '1' } },
    });
  });

  it("keeps last-applied-configuration on Karpenter's kinds only (a same-named kind of another group drops it)", async () => {
    const applied = '{"apiVersion":"karpenter.sh/v1beta1","kind":"NodePool"}';
    const obj = (apiVersion: string, name: string) => ({
      apiVersion,
      kind: 'NodePool',
      metadata: { name, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': applied } },
    });
    const r = await loadInputs([
      write('keep-applied.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [obj('karpenter.sh/v1', 'k'), obj('example.com/v1', 'e')] })),
    ]);
    const annotations = r.objects.map((o) => o.object.metadata.annotations);
    expect(annotations).toEqual([{ 'kubectl.kubernetes.io/last-applied-configuration': applied }, {}]);
  });
});

describe('the two YAML paths agree', () => {
  const corpus = [
    'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n    labels:\n      karpenter.sh/nodepool: default\n  spec:\n    taints:\n    - effect: NoSchedule\n      key: node.cloudprovider.kubernetes.io/uninitialized\n      value: "true"\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    annotations:\n      x: "0755"\n      y: 1e3\n      z: "null"\n  status:\n    capacity:\n      cpu: "4"\n      memory: 16Gi\nkind: List\nmetadata:\n  resourceVersion: ""\n',
    '---\napiVersion: v1\nkind: PodList\nitems:\n  - metadata:\n      name: indented\n    spec:\n      tolerations:\n        - operator: Exists\n---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: flow-style}\nprovisioner: ebs.csi.aws.com\nparameters:\n  type: gp3\n  note: |\n    multi\n    line\n',
  ];
  it.each(corpus.map((c, i) => [i, c]))('document %i', async (i, text) => {
    const p = write(`paths-${i}.yaml`, text as string);
    const exact = await loadInputs([p], { yamlPath: 'exact' });
    const fast = await loadInputs([p], { yamlPath: 'fast' });
    expect(fast.objects).toEqual(exact.objects);
    expect(fast.skipped).toEqual(exact.skipped);
    expect(exact.objects.length).toBeGreaterThan(0);
  });

  it('on every YAML fixture in the repository', async () => {
    const files = fixtureFiles(/\.ya?ml$/);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const exact = await loadInputs([f], { yamlPath: 'exact' });
      const fast = await loadInputs([f], { yamlPath: 'fast' });
      expect(fast.objects, f).toEqual(exact.objects);
    }
  });

  it('a small file read by default (js-yaml whole, lines found by a line scan) carries what the exact path gives', async () => {
    // Another member of the family than the fixtures: a stream of typed lists and lone objects, with comments and
    // blank lines before documents, so that each object's line is not simply its document's first line.
    const text = [
      '# exported by hand',
      '---',
      '',
      'apiVersion: v1',
      'kind: NodeList',
      'items:',
      '- metadata:',
      '    name: spot-a',
      '- metadata:',
      '    name: spot-b',
      '---',
      '# the pool',
      'apiVersion: karpenter.sh/v1',
      'kind: NodePool',
      'metadata:',
      '  name: general',
      '',
    ].join('\n');
    const files = [...fixtureFiles(/\.ya?ml$/), write('small-default.yaml', text)];
    for (const f of files) {
      const exact = await loadInputs([f], { yamlPath: 'exact' });
      const byDefault = await loadInputs([f]);
      expect(byDefault.objects, f).toEqual(exact.objects);
      expect(byDefault.skipped, f).toEqual(exact.skipped);
    }
    const own = await loadInputs([files.at(-1)!]);
    expect(own.objects.map((o) => o.provenance.line)).toEqual([7, 9, 13]);
  });

  it('the fast path streams List items in batches and keeps their lines', async () => {
    const items = Array.from(
      { length: 2000 },
      (_, i) => `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-${i}\n    namespace: default\n  data:\n    k: "${'v'.repeat(200)}"`,
    );
    const p = write('big-list.yaml', `apiVersion: v1\nitems:\n${items.join('\n')}\nkind: List\nmetadata:\n  resourceVersion: ""\n`);
    const fast = await loadInputs([p], { yamlPath: 'fast' });
    expect(fast.objects).toHaveLength(2000);
    expect(fast.objects[1999]!.provenance.line).toBe(3 + 1999 * 7);
    const exact = await loadInputs([p], { yamlPath: 'exact' });
    expect(fast.objects).toEqual(exact.objects);
  });
});

describe('files parsed whole agree with the streaming paths, lines included', () => {
  it('on every JSON and YAML fixture in the repository', async () => {
    const { Snapshot } = await import('../src/snapshot/snapshot.js');
    const files = fixtureFiles(/\.(ya?ml|json)$/);
    let located = 0;
    for (const f of files) {
      const json = f.endsWith('.json');
      const whole = await loadInputs([f], json ? {} : { yamlPath: 'whole' });
      const streamed = await loadInputs([f], json ? { jsonPath: 'stream' } : { yamlPath: 'fast' });
      expect(
        whole.objects.map((o) => o.object),
        f,
      ).toEqual(streamed.objects.map((o) => o.object));
      expect(whole.skipped, f).toEqual(streamed.skipped);
      // Lazily located lines are the lines the streaming path saw.
      const snapshot = new Snapshot(whole);
      whole.objects.forEach((o, i) => {
        const p = snapshot.provenance(o.object);
        if (!p) return; // a second object with the same name, merged into the first
        if (p.fsPath) located++;
        expect(p.line, `${f} object ${i}`).toBe(streamed.objects[i]!.provenance.line);
      });
    }
    expect(located).toBeGreaterThan(100);
  });

  it('falls back to the streaming path when the whole text does not parse cleanly', async () => {
    const p = write(
      'stream-with-noise.json',
      '{"kind":"Node","apiVersion":"v1","metadata":{"name":"a"}}\nWarning: x\n{"kind":"Node","apiVersion":"v1","metadata":{"name":"b"}}\n',
    );
    const r = await loadInputs([p]);
    expect(names(r)).toEqual(['Node/a', 'Node/b']);
    expect(r.objects.map((o) => o.provenance)).toEqual([
      { source: p, line: 1 },
      { source: p, line: 3 },
    ]);
    expect(reasons(r)).toEqual(['stream-with-noise.json:2 kubectl message, not an object: Warning: x']);
  });
});

describe('bad input: reported with file and line, the rest still loads', () => {
  const good = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: good\n';

  async function loadWith(rel: string, content: string | Buffer) {
    const sub = mkdtempSync(join(dir, 'bad-'));
    writeFileSync(join(sub, 'good.yaml'), good);
    mkdirSync(join(sub, rel, '..'), { recursive: true });
    writeFileSync(join(sub, rel), content);
    const r = await loadInputs([sub]);
    expect(names(r)).toContain('Namespace/good');
    return r.skipped.map((s) => ({ file: s.source.slice(sub.length + 1), line: s.line, reason: s.reason }));
  }

  it('malformed YAML', async () => {
    const s = await loadWith('broken.yaml', 'apiVersion: v1\nkind: Node\nmetadata:\n  name: [unclosed\n  labels: {}\n');
    expect(s).toEqual([{ file: 'broken.yaml', line: expect.any(Number), reason: expect.stringMatching(/^YAML: /) }]);
    expect(s[0]!.line).toBeGreaterThanOrEqual(4);
  });

  it('malformed JSON names the line inside the file', async () => {
    const s = await loadWith('broken.json', '{\n  "kind": "Node",\n  "apiVersion": "v1",\n  "metadata": {"name": "x",}\n}\n');
    expect(s).toEqual([{ file: 'broken.json', line: 4, reason: expect.stringMatching(/^JSON: /) }]);
  });

  it('binary and empty files', async () => {
    expect(await loadWith('blob.yaml', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]))).toEqual([
      { file: 'blob.yaml', reason: 'binary file, not YAML, JSON or a log' },
    ]);
    expect(await loadWith('empty.yaml', '')).toEqual([{ file: 'empty.yaml', reason: 'empty file' }]);
    expect(await loadWith('blank.json', '\n\n  \n')).toEqual([{ file: 'blank.json', reason: 'empty file' }]);
  });

  it('leading whitespace never hides content: a file blank for its first 64 KiB and more is read, not called empty', async () => {
    const ns = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;
    const padded = write('padded/blank-lines.yaml', '\n'.repeat(70_000) + ns('after-blank-lines'));
    // Spaces, tabs and a non-breaking space (multi-byte in UTF-8) across the 64 KiB mark, then a JSON list.
    const json = `${' \t'.repeat(40_000)}\u00a0\n{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"after-spaces"}}]}\n`;
    write('padded/spaces.json', json);
    write('padded/only-blank.yaml', '\n  \t'.repeat(50_000));
    const r = await loadInputs([join(dir, 'padded')]);
    expect(names(r).sort()).toEqual(['Namespace/after-blank-lines', 'Namespace/after-spaces']);
    expect(r.objects.find((o) => o.object.metadata.name === 'after-blank-lines')!.provenance).toEqual({ source: padded, line: 70_001 });
    expect(reasons(r)).toEqual(['padded/only-blank.yaml empty file']);
  });

  it('a YAML alias bomb is refused, not expanded', async () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
      'kind: Node',
      'apiVersion: v1',
    ].join('\n');
    const s = await loadWith('bomb.yaml', bomb);
    expect(s).toEqual([{ file: 'bomb.yaml', line: 1, reason: expect.stringMatching(/^YAML: .*alias/i) }]);
  });

  it('deeply nested documents', async () => {
    const s = await loadWith('deep.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: ${'['.repeat(300)}${']'.repeat(300)}\n`);
    expect(s).toEqual([{ file: 'deep.yaml', line: expect.any(Number), reason: expect.stringMatching(/nested deeper than|YAML:/) }]);
  });

  it('non-Kubernetes YAML and GitOps tooling files', async () => {
    const sub = mkdtempSync(join(dir, 'repo-'));
    writeFileSync(join(sub, 'good.yaml'), good);
    writeFileSync(join(sub, 'kustomization.yaml'), 'resources:\n- good.yaml\n');
    writeFileSync(join(sub, 'Chart.yaml'), 'apiVersion: v2\nname: x\nversion: 1.0.0\n');
    writeFileSync(join(sub, 'values.yaml'), 'replicas: 2\n');
    writeFileSync(join(sub, 'config.yaml'), 'server:\n  port: 8080\n');
    const r = await loadInputs([sub]);
    expect(names(r)).toEqual(['Namespace/good']);
    expect(reasons(r).map((x) => x.replace(/^repo-\w+\//, ''))).toEqual([
      'Chart.yaml Helm chart metadata, not a Kubernetes object',
      'config.yaml:1 not a Kubernetes object (no apiVersion/kind; keys: server)',
      'kustomization.yaml Kustomize configuration, not a Kubernetes object',
      'values.yaml Helm values file, not a Kubernetes object',
    ]);
  });

  it('unrendered Helm templates', async () => {
    const s = await loadWith(
      'nodepool.yaml',
      'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {{ .Values.clusterName }}-x86\nspec: {}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: rendered\n',
    );
    expect(s).toEqual([{ file: 'nodepool.yaml', line: 4, reason: expect.stringMatching(/unrendered Helm\/Go template.*helm template/) }]);
  });

  it('kubectl Warning: / Error from server lines mixed into a dump', async () => {
    const s = await loadWith(
      'captured.yaml',
      'Warning: policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\nError from server (NotFound): the server doesn\'t have a resource type "nodeclaims"\n',
    );
    expect(s).toEqual([
      { file: 'captured.yaml', line: 1, reason: expect.stringMatching(/^kubectl message, not an object: Warning: policy/) },
      { file: 'captured.yaml', line: 6, reason: expect.stringMatching(/^kubectl message, not an object: Error from server \(NotFound\)/) },
    ]);
  });

  it('unreadable files (when not running as root)', async () => {
    const sub = mkdtempSync(join(dir, 'perm-'));
    writeFileSync(join(sub, 'good.yaml'), good);
    writeFileSync(join(sub, 'secret.yaml'), good.replace('good', 'hidden'));
    chmodSync(join(sub, 'secret.yaml'), 0o000);
    const r = await loadInputs([sub]);
    if (process.getuid?.() === 0) {
      expect(names(r)).toEqual(['Namespace/good', 'Namespace/hidden']);
    } else {
      expect(names(r)).toEqual(['Namespace/good']);
      expect(reasons(r)[0]).toMatch(/secret\.yaml cannot read file: permission denied/);
    }
  });

  it('symlink loops', async () => {
    const sub = mkdtempSync(join(dir, 'loop-'));
    writeFileSync(join(sub, 'good.yaml'), good);
    symlinkSync(sub, join(sub, 'again'));
    const r = await loadInputs([sub]);
    expect(names(r)).toEqual(['Namespace/good']);
    expect(reasons(r)).toEqual([expect.stringMatching(/again symlink loop/)]);
  });

  it('text that is neither objects nor logs is reported as one span', async () => {
    const s = await loadWith('notes.json', '{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"n"}}\nthis is\nsome pasted\ntext\n');
    expect(s).toEqual([{ file: 'notes.json', line: 2, reason: 'text (3 lines) that is neither an object nor a log block: this is' }]);
  });

  it('nothing is dropped silently: every file is loaded, listed as skipped, or counted in the log summary', async () => {
    const sub = mkdtempSync(join(dir, 'all-'));
    const files: Record<string, string | Buffer> = {
      'nodes.json': JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', items: [{ metadata: { name: 'n1' } }] }),
      'kube-system/karpenter-5d4f8b7c9-x2x7q/logs.txt':
        '==== START logs for container controller of pod kube-system/karpenter-5d4f8b7c9-x2x7q ====\n{"level":"INFO","time":"2024-11-02T10:00:00.000Z","logger":"controller","message":"x","commit":"y"}\n',
      'kube-system/coredns-a/logs.txt': '==== START logs for container coredns of pod kube-system/coredns-a ====\n[INFO] x\n',
      'kube-system/coredns-b/logs.txt': '==== START logs for container coredns of pod kube-system/coredns-b ====\n[INFO] y\n',
      'broken.yaml': 'a: [\n',
      'empty.json': '',
      'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]),
      'values-prod.yaml': 'x: 1\n',
      'README.md': '# notes\n',
      'docs/LICENSE': 'Apache-2.0\n',
    };
    for (const [rel, content] of Object.entries(files)) {
      mkdirSync(join(sub, rel, '..'), { recursive: true });
      writeFileSync(join(sub, rel), content);
    }
    const r = await loadInputs([sub]);
    expect(r.filesRead).toBe(Object.keys(files).length);
    const accounted = new Set([...r.objects.map((o) => o.provenance.source), ...r.logs.map((l) => l.provenance.source), ...r.skipped.map((s) => s.source)]);
    const summary = r.skipped.find((s) => /container log\(s\) of pods other than the Karpenter controller/.test(s.reason));
    expect(summary?.reason).toMatch(/^2 container log/);
    expect(r.skipped.find((s) => /documentation file/.test(s.reason))?.reason).toMatch(
      /^2 documentation file\(s\) not read \(e\.g\. .*(README\.md|LICENSE)\)$/,
    );
    for (const rel of Object.keys(files)) {
      if (rel.includes('coredns') || /README|LICENSE/.test(rel)) continue; // counted in the summaries above
      expect(accounted.has(join(sub, rel)), rel).toBe(true);
    }
  });
});
