/**
 * How much a `kubectl get` output lists, and which field each column holds (loaders/listing.ts,
 * readers/printer-columns.ts): the command line decides whether an object missing from a table is absent or only not
 * shown, and a kind's printer columns per API version say what each cell is. Fixtures: fixtures/tickets/listings/.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listingOf } from '../src/loaders/listing.js';
import { readGetTable } from '../src/loaders/readers/get-table.js';
import { columnField, kindColumns, layoutOf, PRINTER_COLUMNS } from '../src/loaders/readers/printer-columns.js';
import { parseCommand } from '../src/loaders/readers/ticket/command.js';
import { FIXTURES, findingLabel, scan } from './support/scan.js';

const NOW = '2026-06-01T12:00:00Z';
const listing = (name: string) => join(FIXTURES, 'tickets', 'listings', name);
const output = (line: string) => parseCommand(line)!.output;
const whole = (line: string, apiVersion: string, kind: string) => listingOf(output(line), apiVersion, kind).whole;

describe('the command line decides how much a listing lists', () => {
  it('a plain get of a cluster-scoped kind, or -A of a namespaced one, lists the kind', () => {
    expect(whole('$ kubectl get nodepools', 'karpenter.sh/v1', 'NodePool')).toBe(true);
    expect(whole('$ k get pdb --all-namespaces', 'policy/v1', 'PodDisruptionBudget')).toBe(true);
    expect(whole('$ kubectl get storageclass -o wide', 'storage.k8s.io/v1', 'StorageClass')).toBe(true);
  });

  it('selectors, names, one namespace, a pipe or no command line list part of it', () => {
    expect(listingOf(output('$ kubectl get nodeclaims --selector=karpenter.sh/nodepool=batch'), 'karpenter.sh/v1', 'NodeClaim')).toEqual({
      whole: false,
      why: 'the command line lists part of the NodeClaims (--selector karpenter.sh/nodepool=batch)',
    });
    expect(whole('$ kubectl get pods -A --field-selector spec.nodeName=ip-10-1-2-3', 'v1', 'Pod')).toBe(false);
    expect(whole('$ kubectl get sc gp3 io2', 'storage.k8s.io/v1', 'StorageClass')).toBe(false);
    expect(whole('$ kubectl get ec2nodeclass/default', 'karpenter.k8s.aws/v1', 'EC2NodeClass')).toBe(false);
    expect(listingOf(output('$ kubectl get pdb -n billing'), 'policy/v1', 'PodDisruptionBudget')).toEqual({
      whole: false,
      key: 'policy/PodDisruptionBudget@billing',
      why: 'the command line lists namespace billing only',
    });
    expect(whole('$ kubectl get pods', 'v1', 'Pod')).toBe(false);
    expect(whole('$ kubectl get nodeclaims | grep -v True', 'karpenter.sh/v1', 'NodeClaim')).toBe(false);
    expect(listingOf(undefined, 'karpenter.sh/v1', 'NodeClaim').whole).toBe(false);
    expect(whole('$ kubectl describe nodepools', 'karpenter.sh/v1', 'NodePool')).toBe(false);
  });

  it('rows of a filtered or untyped table say nothing of the names they lack; rows of a whole listing do', () => {
    const table = 'NAME      NODECLASS   NODES   READY   AGE\nbatch     batch-nc    2       True    3d\n';
    const single = (hintLine?: string) =>
      readGetTable({ text: table, source: 't.txt', ...(hintLine ? { hint: output(hintLine) } : {}) }).objects.map((o) => o.provenance.single ?? false);
    expect(single('$ kubectl get nodepools')).toEqual([false]);
    expect(single('$ kubectl get nodepools -l team=data')).toEqual([true]);
    expect(single()).toEqual([true]);
    // A command line inside the text types the table under it the same way.
    const inline = readGetTable({ text: `$ kubectl get nodepool batch\n${table}`, source: 't.txt' });
    expect(inline.objects.map((o) => [o.object.kind, o.provenance.single])).toEqual([['NodePool', true]]);
  });
});

describe('printer columns per kind and API version', () => {
  it('JSONPaths become pointers (escaped dots kept in label keys) or the condition they select', () => {
    expect(columnField({ name: 'Zone', jsonPath: '.metadata.labels.topology\\.kubernetes\\.io/zone', type: 'string' })).toEqual({
      header: 'ZONE',
      type: 'string',
      required: false,
      pointer: '/metadata/labels/topology.kubernetes.io~1zone',
    });
    expect(columnField({ name: 'Drifted', jsonPath: '.status.conditions[?(@.type=="Drifted")].status', type: 'string' })).toMatchObject({
      header: 'DRIFTED',
      condition: 'Drifted',
    });
    // Every column of the data reads into a field: no JSONPath the conversion does not understand.
    for (const k of PRINTER_COLUMNS)
      for (const c of k.columns) {
        const f = columnField(c);
        expect(f.pointer ?? f.condition ?? f.each?.list).toMatch(/^\/|^[A-Z]/);
      }
    // A workload's `[*]` columns: each container's field at its index; READY n/m: two fields.
    expect(columnField({ name: 'Images', jsonPath: '.spec.template.spec.containers[*].image', type: 'list' }).each).toEqual({
      list: '/spec/template/spec/containers',
      field: 'image',
    });
    expect(columnField({ name: 'Ready', jsonPath: '.status.readyReplicas', of: '.spec.replicas', type: 'ratio' })).toMatchObject({
      pointer: '/status/readyReplicas',
      of: '/spec/replicas',
    });
  });

  it('a header that is exactly one generation layout names it; AGE-less layouts are whole, not cut', () => {
    expect(layoutOf('NodePool', ['NAME', 'NODECLASS'])).toEqual({ apiVersion: 'karpenter.sh/v1beta1' });
    expect(layoutOf('NodePool', ['NAME', 'NODECLASS', 'NODES', 'READY', 'AGE', 'WEIGHT', 'CPU', 'MEMORY'])).toEqual({ apiVersion: 'karpenter.sh/v1' });
    expect(layoutOf('NodeClaim', ['NAME', 'TYPE', 'ZONE', 'NODE', 'READY', 'AGE'])).toEqual({ apiVersion: 'karpenter.sh/v1beta1' });
    expect(layoutOf('NodeClaim', ['NAME', 'TYPE', 'CAPACITY', 'ZONE', 'NODE', 'READY', 'AGE'])).toEqual({ apiVersion: 'karpenter.sh/v1' });
    // Cut through NODES: no generation prints that.
    expect(layoutOf('NodePool', ['NAME', 'NODECLASS', 'NODES'])).toBeUndefined();
    expect([...kindColumns('PodDisruptionBudget', 'policy/v1').keys()]).toEqual(['MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS', 'AGE']);
  });

  it('a v1beta1 NodePool table reads its node class; a v1 table cut after NODECLASS leaves the class unknown', () => {
    const read = (text: string) => readGetTable({ text, source: 't.txt' }).objects[0]!;
    const beta = read('NAME     NODECLASS\nbatch    batch-nc\n');
    expect(beta.object).toMatchObject({ apiVersion: 'karpenter.sh/v1beta1', spec: { template: { spec: { nodeClassRef: { name: 'batch-nc' } } } } });
    const cut = read('NAME     NODECLASS   NODES\nbatch    batch-nc    3\n');
    expect(cut.object.apiVersion).toBe('karpenter.sh/v1');
    expect(cut.provenance.partial!.known).not.toContain('/status/resources/nodes');
  });

  it('v1 nodeclaims -o wide: the Drifted column is that condition, beside Ready', () => {
    const text =
      'NAME          TYPE        CAPACITY   ZONE         NODE                        READY   AGE   ID                                     NODEPOOL   NODECLASS   DRIFTED\n' +
      'web-5t8kq     m7i.large   spot       us-east-2a   ip-10-4-1-9.ec2.internal    True    6d    aws:///us-east-2a/i-0c1d2e3f4a5b6c7d8  web        web-nc      True\n';
    const claim = readGetTable({ text, source: 't.txt' }).objects[0]!;
    expect(claim.object.status).toEqual({
      nodeName: 'ip-10-4-1-9.ec2.internal',
      providerID: 'aws:///us-east-2a/i-0c1d2e3f4a5b6c7d8',
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'Drifted', status: 'True' },
      ],
    });
    expect(claim.object.spec).toEqual({ nodeClassRef: { name: 'web-nc' } });
  });
});

describe('tickets whose tables list part of a kind (fixtures/tickets/listings/)', () => {
  it('classes listed by label: a pool naming a class outside the selection is not evaluated, never "does not exist"', async () => {
    const r = await scan([listing('nodeclasses-filtered-by-label.md')], { now: NOW });
    expect(r.findings.map(findingLabel)).toEqual([]);
    const ne = r.run.notEvaluatedFor.filter((n) => n.ruleId === 'nodepool-missing-nodeclass');
    expect(ne.map((n) => n.object?.name)).toEqual(['shared-web']);
    expect(ne[0]!.reason).toContain('EC2NodeClass platform-std is not among the one EC2NodeClass the ticket shows (not their list)');
  });

  it('claims listed by selector: a nominated claim outside it is stated as not shown, not settled as gone', async () => {
    const r = await scan([listing('nodeclaims-selector-nominated.txt')], { now: NOW });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => n.reason)).toEqual([
      expect.stringContaining('NodeClaim gpu-k2m8d: Karpenter nominated 1 pod to it'),
    ]);
  });

  it('v1beta1 pools (NAME NODECLASS, no AGE): the class column is whole, read as v1beta1, and its reference is judged', async () => {
    const r = await scan([listing('nodepools-v1beta1-no-age.txt')], { now: NOW });
    // The class column was read (not taken as cut) and `kubectl get ec2nodeclasses` lists the kind whole: the pool
    // whose class the listing lacks is a finding (a warning: a ticket), web-nc's pool is not.
    expect(r.findings.map(findingLabel).sort()).toEqual([
      'deprecated-karpenter-api NodePool batch',
      'deprecated-karpenter-api NodePool frontend',
      'nodepool-missing-nodeclass NodePool batch',
    ]);
    const missing = r.findings.find((f) => f.ruleId === 'nodepool-missing-nodeclass')!;
    expect(missing.severity).toBe('warning');
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'nodepool-missing-nodeclass')).toEqual([]);
  });

  it('a PDB row with ALLOWED DISRUPTIONS 0 and the events it blocks: the finding stands on the table', async () => {
    const r = await scan([listing('pdb-zero-blocks-consolidation.txt')], { now: NOW });
    // Stated by Karpenter's events, named on the PDB the table shows at 0 (its selector, so its pods, not shown).
    expect(r.findings.map(findingLabel)).toEqual(['pdb-blocks-eviction PodDisruptionBudget billing/invoicer-pdb (records)']);
    const pdb = r.load.objects.find((o) => o.object.metadata.name === 'invoicer-pdb')!;
    expect(pdb.object.status).toEqual({ disruptionsAllowed: 0 });
    expect(pdb.object.spec).toEqual({ maxUnavailable: 0 });
    expect(pdb.provenance.partial!.known).toContain('/spec/minAvailable');
  });
});
