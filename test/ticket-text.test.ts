import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { splitText } from '../src/loaders/readers/ticket/blocks.js';
import { parseCommand } from '../src/loaders/readers/ticket/command.js';
import type { LoadResult } from '../src/loaders/types.js';
import { dig } from '../src/kube/fields.js';
import { Snapshot } from '../src/snapshot/snapshot.js';

const TICKETS = join(import.meta.dirname, '..', 'fixtures', 'tickets');

async function load(name: string): Promise<LoadResult> {
  return loadInputs([join(TICKETS, name)], { jobs: 0 });
}

/** `Kind namespace/name @line` for every object read. */
function objects(r: LoadResult): string[] {
  return r.objects.map(
    ({ object: o, provenance: p }) =>
      `${o.apiVersion} ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name ?? `${o.metadata.generateName}*`} @${p.line}`,
  );
}

function logs(r: LoadResult): string[] {
  return r.logs.map(
    (l) => `@${l.provenance.line} ${l.time ?? '-'}${l.timeZoneUnknown ? ' (zone unknown)' : ''}${l.pod ? ` [${l.pod.name}]` : ''} ${l.message}`,
  );
}

function skipped(r: LoadResult): string[] {
  return r.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`);
}

describe('a ticket with outputs embedded in it', () => {
  it('a fenced block under a heading and a prompt line: the prompt types the fragment, elisions are gaps', async () => {
    const r = await load('fenced-nodeclaim.md');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodeClaim batch-spot-7xq2m @14']);
    const claim = r.objects[0]!.object;
    expect(claim.metadata.labels?.['karpenter.sh/nodepool']).toBe('batch-spot');
    expect(dig(claim, 'spec', 'expireAfter')).toBe('720h');
    expect(dig(claim, 'status', 'conditions')).toHaveLength(2);
    expect(skipped(r)).toEqual(['1 prose (8 paragraphs), not objects or logs']);
  });

  it('YAML between paragraphs, shifted by the paste, typed by `k get` and `# kubectl … -n NS`', async () => {
    const r = await load('yaml-between-paragraphs.txt');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool general-arm @10', 'policy/v1 PodDisruptionBudget shop/web-frontend @34']);
    expect(dig(r.objects[1]!.object, 'spec', 'maxUnavailable')).toBe(0);
    expect(skipped(r)).toEqual(['1 prose (4 paragraphs), not objects or logs']);
  });

  it('a k9s view: the box drawing goes, the object keeps its lines', async () => {
    const r = await load('k9s-yaml-view.txt');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool default @2']);
    expect(dig(r.objects[0]!.object, 'spec', 'disruption', 'budgets')).toEqual([{ nodes: '0' }]);
    expect(r.skipped).toEqual([]);
  });

  it('a PowerShell session: each output belongs to the command above it, the nodes table too (partial Nodes)', async () => {
    const r = await load('powershell-session.txt');
    expect(objects(r)).toEqual([
      'karpenter.k8s.aws/v1 EC2NodeClass default @2',
      'v1 Node ip-10-20-31-7.eu-central-1.compute.internal @18',
      'v1 Node ip-10-20-44-9.eu-central-1.compute.internal @19',
    ]);
    expect(skipped(r)).toEqual([]);
  });

  it('an issue template without fences: a list whose indentation the paste dropped goes back under its key', async () => {
    const r = await load('issue-template-unfenced.txt');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool nightly @7']);
    expect(dig(r.objects[0]!.object, 'spec', 'template', 'spec', 'requirements')).toEqual([
      { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
      { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    ]);
    expect(logs(r)).toEqual([
      '@29 2023-10-02T23:10:41.204Z deprovisioning via consolidation delete, terminating 1 machines ip-10-4-12-9.ec2.internal/c6a.large/spot',
      '@30 2023-10-02T23:10:44.018Z deprovisioning nodes, command failed',
    ]);
    expect(skipped(r)).toEqual(['1 prose (4 paragraphs), not objects or logs']);
  });

  it("a reply quoting an earlier comment's block reads the quoted object at its line", async () => {
    const text =
      'Quoting what you wrote:\n\n> Here is the pool:\n> ```yaml\n> apiVersion: karpenter.sh/v1\n> kind: NodePool\n> metadata:\n>   name: quoted\n> ```\n\nThanks\n';
    const r = await loadInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool quoted @5']);
  });

  it('a heredoc in a shell fence: the YAML fed to kubectl is read, the shell lines are named, kubectl top lists nodes', async () => {
    const r = await load('heredoc-and-top.md');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool trial @5', 'v1 Node ip-10-1-2-3.ec2.internal @20']);
    // `top node -l karpenter.sh/nodepool=trial`: the selector says the node's pool; its usage is not read.
    expect(r.objects[1]!.object.metadata.labels).toEqual({ 'karpenter.sh/nodepool': 'trial' });
    expect(r.objects[1]!.provenance.partial!.known).toEqual(['/metadata/name', '/metadata/labels/karpenter.sh~1nodepool']);
    // The heredoc's `cat <<EOF | kubectl apply -f -` and `EOF` frame the NodePool: read with it, not listed as unread.
    expect(skipped(r)).toEqual(['13 a bash code block, not read', '1 prose (1 paragraph), not objects or logs']);
  });

  it('a chat transcript: log records and an object between the messages', async () => {
    const r = await load('chat-transcript.txt');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool ingest @8']);
    expect(logs(r)).toEqual(['@4 2025-04-22T01:58:40.112Z could not schedule pod', '@5 2025-04-22T01:58:50.407Z found provisionable pod(s)']);
    expect(skipped(r)).toEqual(['1 prose (3 paragraphs), not objects or logs']);
  });
});

describe('log records as people paste them', () => {
  it('one record pretty-printed over lines, records in a fence, and YAML in the same text', async () => {
    const r = await load('pretty-log-and-yaml.md');
    expect(logs(r)).toEqual([
      '@4 2025-02-03T10:41:27.311Z failed launching nodeclaim',
      '@21 2025-02-03T10:41:28.002Z deleted nodeclaim',
      '@22 2025-02-03T10:41:29.117Z created nodeclaim',
    ]);
    expect(r.logs[0]!.fields.NodeClaim).toEqual({ name: 'default-h4kzw' });
    expect(r.logs[0]!.level).toBe('ERROR');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodePool default @28']);
  });

  it("behind a log viewer's columns: the record's own time wins; a zone-less column is kept but never the reference time", async () => {
    const r = await load('log-viewer-columns.txt');
    expect(logs(r)).toEqual([
      '@3 2025-02-03T10:41:27.311Z [karpenter-6c9f7d8b5-2xkqp] failed launching nodeclaim',
      '@4 2025-02-03T10:41:28.002Z [karpenter-6c9f7d8b5-2xkqp] deleted nodeclaim',
      '@5 2025-02-03T11:52:10.450Z (zone unknown) [karpenter-6c9f7d8b5-2xkqp] successfully acquired lease kube-system/karpenter-leader-election',
    ]);
    // The klog line's only time is the viewer's Berlin-time column: taken as UTC it would be an hour late.
    const snapshot = new Snapshot(r);
    expect(snapshot.referenceTime.iso).toBe('2025-02-03T10:41:28.002Z');
  });

  it('a pretty-printed record in a plain log file is one record at its first line', async () => {
    const text =
      '{"level":"INFO","time":"2025-02-03T10:40:00.000Z","logger":"controller","message":"starting","commit":"4ff8cd5"}\n{\n  "level": "ERROR",\n  "time": "2025-02-03T10:41:27.311Z",\n  "logger": "controller",\n  "message": "failed launching nodeclaim",\n  "commit": "4ff8cd5"\n}\n';
    const r = await loadInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
    expect(logs(r)).toEqual(['@1 2025-02-03T10:40:00.000Z starting', '@2 2025-02-03T10:41:27.311Z failed launching nodeclaim']);
    expect(r.skipped).toEqual([]);
  });
});

describe('honest skip reasons', () => {
  it('prose alone is called prose', async () => {
    const r = await load('prose-only.txt');
    expect(r.objects).toEqual([]);
    expect(skipped(r)).toEqual(['1 prose (3 paragraphs), not objects or logs']);
  });

  it('a get table under its command line is read, in the namespace the command names', async () => {
    const r = await load('prose-and-table.txt');
    expect(objects(r)).toEqual(['v1 Pod batch/report-28977120-x7m2k @8', 'v1 Pod batch/report-28977180-k2p9d @9']);
    expect(skipped(r)).toEqual(['1 prose (3 paragraphs), not objects or logs']);
  });

  it("kubectl's own messages are named as such, with the command they answer", async () => {
    const text = 'We checked:\n\n$ kubectl get nodepool gpu\nError from server (NotFound): nodepools.karpenter.sh "gpu" not found\n\nso it is gone.\n';
    const r = await loadInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
    expect(skipped(r)).toEqual([
      '4 kubectl\'s message to `kubectl get nodepool gpu`: Error from server (NotFound): nodepools.karpenter.sh "gpu" not found, not read',
      '1 prose (2 paragraphs), not objects or logs',
    ]);
  });

  it('"No resources found" under `kubectl get KIND` is read: none of that kind exist (listed, and empty)', async () => {
    const text = 'We checked:\n\n$ kubectl get nodeclaims\nNo resources found\n\nso nothing is being created.\n';
    const r = await loadInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
    expect(skipped(r)).toEqual(['1 prose (2 paragraphs), not objects or logs']);
    expect([...r.listedKinds]).toEqual(['karpenter.sh/NodeClaim']);
    expect(r.objects).toEqual([]);
  });

  it('a fragment without kind and without a command line says what it lacks', async () => {
    // `requirements` at the top of a spec: a NodeClaim's, a Machine's, a Provisioner's or a NodeOverlay's alike.
    const text =
      'Our pool, trimmed:\n\n```yaml\nmetadata:\n  name: general\nspec:\n  requirements:\n    - key: karpenter.sh/capacity-type\n      operator: In\n      values: [spot]\n```\n';
    const r = await loadInputs(['-'], { stdin: Readable.from([Buffer.from(text)]) });
    expect(r.objects).toEqual([]);
    expect(skipped(r)).toEqual([
      '4 part of an object without its kind (keys: metadata, spec): kind not inferred, its fields fit more than one kind (it could be NodeClaim, NodeOverlay, Machine or Provisioner); include the `kubectl get KIND NAME -o yaml` line that printed it',
      '1 prose (1 paragraph), not objects or logs',
    ]);
  });
});

describe('objects without a name', () => {
  it('two NodeClaims with only a generateName stay two, and are shown by their generateName', async () => {
    const r = await load('generate-name-only.yaml');
    expect(objects(r)).toEqual(['karpenter.sh/v1 NodeClaim batch-spot-* @2', 'karpenter.sh/v1 NodeClaim batch-spot-* @27']);
    const snapshot = new Snapshot(r);
    expect(snapshot.counts()).toMatchObject({ NodeClaim: 2 });
    expect(snapshot.mergedCount).toBe(0);
    expect(snapshot.referenceTime.evidence).toBe('NodeClaim batch-spot-… (generateName only, no name) Launched transition');
  });
});

describe('the block splitter and the command line', () => {
  it('reads the prompts people paste', () => {
    const typed = (line: string) => {
      const c = parseCommand(line);
      // How much the command lists (`listing`) is asserted in test/listing.test.ts.
      const { listing: _, ...output } = c?.output ?? {};
      return c && { verb: c.verb, ...output, format: c.format };
    };
    expect(typed('$ kubectl get nodeclaim default-x7k2p -o yaml')).toEqual({
      verb: 'get',
      kind: 'NodeClaim',
      apiVersion: 'karpenter.sh/v1',
      name: 'default-x7k2p',
      format: 'yaml',
    });
    expect(typed('k get nodepools -oyaml')).toEqual({ verb: 'get', kind: 'NodePool', apiVersion: 'karpenter.sh/v1', format: 'yaml' });
    expect(typed('k is for kubectl')).toBeNull();
    expect(typed('# kubectl -n kube-system get pdb/karpenter -o json')).toEqual({
      verb: 'get',
      kind: 'PodDisruptionBudget',
      apiVersion: 'policy/v1',
      name: 'karpenter',
      namespace: 'kube-system',
      format: 'json',
    });
    expect(typed('PS C:\\> kubectl.exe get nodeclaims.v1beta1.karpenter.sh --namespace=x')).toEqual({
      verb: 'get',
      kind: 'NodeClaim',
      apiVersion: 'karpenter.sh/v1beta1',
      namespace: 'x',
      format: '',
    });
    expect(typed('ops@bastion:~$ kubectl get nodes,pods -o yaml')).toEqual({ verb: 'get', format: 'yaml' });
    expect(typed('$ kubectl get nodepool default -o yaml | grep -A3 limits')).toEqual({ verb: 'get', format: 'yaml' });
    expect(typed('# Description')).toBeNull();
    expect(typed('kubectl is great')).toBeNull();
  });

  it('keeps each block at its own lines and tells blocks from prose', () => {
    const { blocks, prose } = splitText('Intro text here.\n\n```\n$ kubectl get nodes -o yaml\napiVersion: v1\nkind: List\n```\nThe end.\n');
    expect(blocks.map((b) => [b.kind, b.start, b.command?.line, b.lines[0]])).toEqual([['yaml', 5, 4, 'apiVersion: v1']]);
    expect(prose.map((p) => [p.start, p.text])).toEqual([
      [1, 'Intro text here.'],
      [8, 'The end.'],
    ]);
  });

  it('a comment line inside unfenced YAML does not cut it in two', () => {
    const { blocks } = splitText(
      'Our pool:\n\napiVersion: karpenter.sh/v1\nkind: NodePool\n# limits raised last week\nspec:\n  limits:\n    cpu: "8"\n\nThanks\n',
    );
    expect(blocks.map((b) => [b.kind, b.start, b.lines.length])).toEqual([['yaml', 3, 6]]);
  });

  it('a command line above a fence types the fence; prose in between unties them', () => {
    const typed = splitText('$ kubectl get nodeclaim a-1 -o yaml\n\n```yaml\nstatus: {}\n```\n').blocks[0]!;
    expect([typed.start, typed.command?.output]).toEqual([4, { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name: 'a-1', listing: {} }]);
    const untied = splitText(
      '$ kubectl get nodeclaim a-1 -o yaml\nI ran that but it printed too much, so here is our pool instead:\n\nspec:\n  limits:\n    cpu: "8"\n',
    ).blocks[0]!;
    expect([untied.start, untied.command]).toEqual([4, undefined]);
  });
});
