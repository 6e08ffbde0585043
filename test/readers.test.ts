import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { READERS, pickReader } from '../src/loaders/readers/registry.js';
import type { Sniff } from '../src/loaders/readers/reader.js';

const sniff = (name: string, text: string, extra: Partial<Sniff> = {}): Sniff => ({
  name,
  relPath: name,
  size: Buffer.byteLength(text),
  direct: false,
  head: Buffer.from(text),
  sample: text,
  ...extra,
});

const picked = (name: string, text: string, extra: Partial<Sniff> = {}) => pickReader(sniff(name, text, extra))?.id;

describe('the reader registry', () => {
  it('offers a file to each reader in order; the first sure one takes it', () => {
    expect(picked('README.md', '# notes\n')).toBe('documentation');
    expect(picked('.karpdoctor.yaml', 'rules: {}\n')).toBe('karpdoctor-config');
    expect(picked('karpdoctor-manifest.json', '{"format":"karpdoctor.io/bundle-manifest/v1"}')).toBe('bundle-manifest');
    expect(picked('values.yaml', 'settings:\n  clusterName: prod\n')).toBe('helm');
    expect(picked('values.yaml', 'x: 1\n', { size: 10 << 20 })).toBe('tooling');
    expect(picked('kustomization.yaml', 'resources: []\n')).toBe('tooling');
    expect(picked('nodes.json', '  \n')).toBe('empty');
    expect(picked('nodes.json', '{"a":\u0000}')).toBe('binary');
    expect(
      picked('stdout', '{\n    "kind": "NodeList",\n    "items": []\n}\n==== START logs for container controller of pod kube-system/karpenter-5d8f ====\n'),
    ).toBe('cluster-info-dump');
    expect(picked('logs.txt', 'hello\n', { relPath: 'kube-system/karpenter-5d8f/logs.txt' })).toBe('controller-log');
    expect(picked('nodes.json', '{"apiVersion":"v1","kind":"Node"}')).toBe('json');
    expect(picked('nodepool.yaml', 'apiVersion: karpenter.sh/v1\nkind: NodePool\n')).toBe('yaml');
    expect(picked('notes.pdf', '%PDF-1.7 stuff')).toBeUndefined();
  });

  it('a README named on the command line is read as a ticket, not skipped as documentation', () => {
    expect(picked('README.md', '# notes\n', { direct: true })).toBe('ticket-text');
  });

  it('text with prose is a ticket; manifests with comments, plain logs and blocks cut from a ticket are not', () => {
    expect(picked('ticket.txt', 'Hello team,\n\nnodes do not scale down.\n')).toBe('ticket-text');
    expect(picked('stdin', '$ kubectl get nodepools -o yaml\napiVersion: v1\n', { direct: true })).toBe('ticket-text');
    expect(picked('nodepool.yaml', '# the general pool, see the wiki\napiVersion: karpenter.sh/v1\nkind: NodePool\n')).toBe('yaml');
    expect(picked('karpenter.log', 'Hello\n{"level":"INFO","time":"2025-01-01T00:00:00Z","logger":"controller","message":"x","commit":"1"}\n')).toBe(
      'controller-log',
    );
    expect(picked('block.txt', 'Hello team,\n\nsome prose\n', { embedded: true })).toBeUndefined();
    expect(picked('block.yaml', 'metadata:\n  name: x\n', { embedded: true })).toBe('yaml');
  });

  it('in a directory, only a text extension makes a ticket: scripts, MIME documents and ownership files are counted', () => {
    expect(picked('deploy-notes', '$ kubectl get nodepools -o yaml\napiVersion: v1\n')).not.toBe('ticket-text');
    expect(picked('capacity-report', '#!/usr/bin/env ruby\n# prints the pools\nputs `kubectl get nodepools`\n')).toBe('not-manifest-content');
    expect(picked('capacity-report', '#!/usr/bin/env ruby\nputs 1\n', { direct: true })).not.toBe('not-manifest-content');
    expect(picked('userdata-multipart', 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n--//\n')).toBe('not-manifest-content');
    expect(picked('OWNERS_ALIASES', 'aliases:\n  platform:\n    - ana\n')).toBe('not-manifest');
    expect(picked('nodepool.yaml.tftpl', 'apiVersion: karpenter.sh/v1\nkind: NodePool\n')).toBe('not-manifest');
    expect(picked('pool.hbs', 'name: {{name}}\n')).toBe('not-manifest');
  });

  it('reader ids are unique, and name readers come before content readers', () => {
    const ids = READERS.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const firstContent = READERS.findIndex((r) => r.needs === 'content');
    expect(READERS.slice(firstContent).every((r) => r.needs === 'content')).toBe(true);
  });

  it('a file no reader claims is reported with why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-readers-'));
    writeFileSync(join(dir, 'diagram.svg'), '<svg xmlns="http://www.w3.org/2000/svg"></svg>\n');
    const r = await loadInputs([dir]);
    // Counted with the other files that are not manifests (one line for all of them), and named.
    const svg = join(dir, 'diagram.svg');
    expect(r.skipped).toEqual([
      { source: svg, reason: `1 file(s) that are not Kubernetes manifests not read: 1 other file that is not YAML, JSON or a log (e.g. ${svg})` },
    ]);
  });
});
