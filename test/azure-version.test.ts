/**
 * Karpenter's Azure provider numbers its releases on its own (docs/karpenter-behaviour.md §0.4): a number stated in an
 * Azure context is weighed against Azure's releases and mapped to the core it vendors; the same number in an AWS
 * context stays an AWS release.
 */
import { describe, expect, it } from 'vitest';
import { azureCoreOf, notAnAzureRelease } from '../src/kube/azure-version.js';
import type { KubeObject } from '../src/kube/types.js';
import type { LoadResult, StatedVersion } from '../src/loaders/types.js';
import { statedVersions } from '../src/loaders/readers/ticket/versions.js';
import { Snapshot } from '../src/snapshot/snapshot.js';

describe('Azure releases and the core they vendor', () => {
  it.each([
    ['0.3.0', false, '0.33.2', false],
    ['0.6.1', false, '0.36.1', false],
    ['0.7.5', false, '1.0.6', false],
    ['1.6.7', false, '1.6.2', false],
    ['1.7.2', false, '1.7.1', false],
    // Every v0.5 release vendors core v0.36.1: the series says it exactly.
    ['0.5', true, '0.36.1', false],
    // v0.7 releases vendor v1.0.4–v1.0.6: only core's minor is sure.
    ['0.7', true, '1.0.0', true],
    // A patch newer than the releases read keeps its minor's core series.
    ['1.13.4', false, '1.13.0', true],
  ])('%s (series %s) vendors core %s (series %s)', (azure, series, core, coreSeries) => {
    const [a, b, c = '0'] = azure.split('.');
    const mapped = azureCoreOf([Number(a), Number(b), Number(c)], series);
    expect(mapped && `${mapped.core.join('.')}`).toBe(core);
    expect(mapped?.series).toBe(coreSeries);
  });

  it.each([
    // Real AWS releases, never Azure's: its v0 line stopped at v0.7.5 and it went from there to v1.4.0.
    ['0.37.2', false],
    ['1.2.1', false],
    ['0.7.6', false],
    // Minors Azure skipped.
    ['1.9', true],
    ['1.11.0', false],
    // A Kubernetes version in the version field.
    ['1.31.2', false],
  ])('%s is no Azure release', (v, series) => {
    const [a, b, c = '0'] = v.split('.');
    expect(notAnAzureRelease([Number(a), Number(b), Number(c)], series)).toMatch(/is not a release of Karpenter's Azure provider/);
  });
});

const load = (objects: KubeObject[], stated: StatedVersion[]): LoadResult => ({
  objects: objects.map((object, i) => ({ object, provenance: { source: 'ticket.md', line: 10 + i } })),
  logs: [],
  skipped: [],
  listedKinds: new Set(),
  sources: ['ticket.md'],
  filesRead: 1,
  statedVersions: stated,
});

const served = (apiVersion: string, kind: string, name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion, kind, metadata: { name, uid: `${name}-uid`, resourceVersion: '4410' }, spec, status: {} }) as KubeObject;

const statement = (version: string, text = `Karpenter Version: v${version}`): StatedVersion => ({
  version,
  source: 'ticket.md',
  line: 3,
  text,
  how: 'template',
});

describe('a stated version, weighed by the provider that runs', () => {
  const aksClass = (apiVersion: string) => served(apiVersion, 'AKSNodeClass', 'batch-nodes', { imageFamily: 'AzureLinux' });

  it('an Azure release beside a served AKSNodeClass: mapped to its core, the release kept in the evidence', () => {
    const s = new Snapshot(load([aksClass('karpenter.azure.com/v1beta1')], [statement('1.5.3')]));
    expect(s.controller).toMatchObject({ version: [1, 5, 0], versionIsCore: true, versionSource: 'ticket' });
    expect(s.controller.versionEvidence).toBe(
      'Azure provider v1.5.3, stated in the ticket: "Karpenter Version: v1.5.3" (ticket.md:3), which vendors core v1.5.0',
    );
  });

  it('an AWS-only number in an Azure ticket is not used (v0.36.2 is AWS v0.36.2, no Azure release)', () => {
    const s = new Snapshot(load([aksClass('karpenter.azure.com/v1alpha2')], [statement('0.36.2')]));
    expect(s.controller.version).toBeUndefined();
    expect(s.controller.note).toContain("0.36.2 is not a release of Karpenter's Azure provider");
  });

  it('an Azure release the served objects contradict: v1beta1 AKSNodeClass came with v1.4.0', () => {
    const s = new Snapshot(load([aksClass('karpenter.azure.com/v1beta1')], [statement('0.7.2')]));
    expect(s.controller.version).toBeUndefined();
    expect(s.controller.note).toContain('Azure provider v0.7.2 vendors core v1.0.5, but v1beta1 AKSNodeClass objects point to Azure provider ≥ v1.4.0');
  });

  it('a v1beta1 NodePool served beside an AKSNodeClass rules out the v1.4+ releases', () => {
    const pool = served('karpenter.sh/v1beta1', 'NodePool', 'batch', {
      template: { spec: { nodeClassRef: { name: 'batch-nodes' }, requirements: [] } },
    });
    const s = new Snapshot(load([pool, aksClass('karpenter.azure.com/v1alpha2')], [statement('1.6.4')]));
    expect(s.controller.version).toBeUndefined();
    expect(s.controller.note).toContain('Azure provider v1.6.4 vendors core v1.6.2, but v1beta1 NodePool objects point to v0.32–v1.0');
  });

  it('near miss: the same number in an AWS ticket is an AWS release, taken as it is', () => {
    const pool = served('karpenter.sh/v1', 'NodePool', 'batch', {
      template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'x' } } },
    });
    const s = new Snapshot(load([pool], [statement('1.5.3')]));
    expect(s.controller).toMatchObject({ version: [1, 5, 3], versionSource: 'ticket' });
    expect(s.controller.versionIsCore).toBeUndefined();
  });

  it("a ticket naming the Azure provider's chart makes its number an Azure release, with no AKSNodeClass shown", () => {
    const lines = ['We installed it with', 'helm upgrade --install karpenter oci://mcr.microsoft.com/aks/karpenter/karpenter --version 0.6.2 -n kube-system'];
    const stated = statedVersions(lines, 'ticket.md');
    expect(stated).toMatchObject([{ version: '0.6.2', how: 'helm command', azure: true }]);
    const s = new Snapshot(load([], stated));
    expect(s.controller).toMatchObject({ version: [0, 36, 1], versionIsCore: true });
  });

  it('near miss: a link to one of its threads says nothing of the provider that runs', () => {
    const lines = ['- Chart Version: 1.1.1', 'Looks like github.com/Azure/karpenter-provider-azure/issues/4242 but on EKS'];
    expect(statedVersions(lines, 'ticket.md')[0]!.azure).toBeUndefined();
  });
});
