/**
 * Issue 20 point 3: what a paste states is weighed. An object the input does not hold is worded by what the input is —
 * a ticket shows what was pasted ("not among the 2 EC2NodeClasses the ticket shows"), a repository may lack what
 * Terraform creates ("not in the scanned files"), a dump lists the kind and proves absence — whichever rule meets it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindPlural } from '../src/kube/kinds.js';
import { FIXTURES, scan, scanRule } from './support/scan.js';
import { caseDir } from './rules/fixture-helpers.js';

const scope = (name: string) => join(FIXTURES, 'tickets', 'scope', name);

/** The YAML of a ticket's fences (or its unfenced documents), written as a repository's manifest file. */
function asRepository(ticket: string): string {
  const text = readFileSync(ticket, 'utf8');
  const fenced = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const yaml = fenced.length ? fenced.join('---\n') : text.slice(text.indexOf('---\n'), text.lastIndexOf('\n\nThanks'));
  const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-scope-'));
  writeFileSync(join(dir, 'manifests.yaml'), yaml);
  return dir;
}

describe('a ticket pasting only whole manifests, a subset of the node classes', () => {
  it('the missing node class is not among those the ticket shows, with the list command; no finding, so no error', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [scope('manifests-two-classes-one-pool.md')]);
    expect(r.snapshot.inputName).toBe('the ticket');
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      expect.stringMatching(
        /^NodePool render-gpu \(.*\): EC2NodeClass gpu-al2023 is not among the 2 EC2NodeClasses the ticket shows \(not their list\): `kubectl get ec2nodeclasses` shows whether it exists$/,
      ),
    ]);
  });

  it('another rule, another kind: a claim naming a StorageClass the ticket does not show is worded the same way', async () => {
    const r = await scanRule('pvc-references-missing-object', [scope('manifests-claim-and-classes.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      expect.stringContaining(
        'StorageClass ebs-gp3-encrypted is not among the 2 StorageClasses the ticket shows (not their list): `kubectl get storageclasses` shows whether it exists',
      ),
    ]);
    expect(r.run.notEvaluatedFor[0]!.reason).not.toContain('scanned files');
  });
});

describe("a ticket pasting the kind's list (`kubectl get ec2nodeclasses -o yaml`)", () => {
  it('judges the missing class absent, naming what the ticket lists rather than "the snapshot"', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [join(FIXTURES, 'tickets', 'single-objects', 'v1beta1-pool-and-nodeclass-list.md')]);
    expect(r.findings.map((f) => [f.messageId, f.data?.namesClause])).toEqual([['nodeClassMissing', 'the ticket lists default']]);
  });
});

describe('near misses: the same objects in other inputs keep their own wording', () => {
  it('a repository holding the same manifests: not in the scanned files (Terraform may create it)', async () => {
    for (const ticket of ['manifests-two-classes-one-pool.md', 'manifests-claim-and-classes.txt']) {
      const r = await scan([asRepository(scope(ticket))], { only: ['nodepool-missing-nodeclass', 'pvc-references-missing-object'] });
      expect(r.snapshot.inputName).toBe('the repository');
      expect(r.findings).toEqual([]);
      expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
        expect.stringMatching(
          / is not in the scanned files \(created outside them, e\.g\. by Terraform or an add-on\?\); --assume-complete judges it as missing$/,
        ),
      ]);
    }
  });

  it('a dump that lists the node classes: absent, an error that says so', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [caseDir('nodepool-missing-nodeclass', 'fires')]);
    expect(r.snapshot.inputName).toBe('the dump');
    expect(r.findings.map((f) => [f.messageId, f.severity])).toContainEqual(['nodeClassMissing', 'error']);
    expect(r.run.notEvaluatedFor).toEqual([]);
  });
});

describe('kindPlural', () => {
  it('pluralises every kind as the API and people write it', () => {
    expect(
      ['EC2NodeClass', 'AWSNodeTemplate', 'StorageClass', 'NodePool', 'Policy', 'NetworkPolicy', 'Endpoints', 'Ingress', 'Gateway'].map(kindPlural),
    ).toEqual(['EC2NodeClasses', 'AWSNodeTemplates', 'StorageClasses', 'NodePools', 'Policies', 'NetworkPolicies', 'Endpoints', 'Ingresses', 'Gateways']);
  });
});
