/**
 * A version a ticket states is weighed before it is used (issue 20 item 3): a number that is no Karpenter release, or
 * one the objects the API server gave back could not have been served by, is left out and the header says why. A
 * manifest pasted from a repository says nothing against it: it may be what the running version refuses.
 */
import { describe, expect, it } from 'vitest';
import { notARelease, parseVersion } from '../src/kube/version.js';
import { FIXTURES, scan } from './support/scan.js';

const versions = (name: string) => `${FIXTURES}tickets/versions/${name}`;

describe('a stated Karpenter version', () => {
  it('that is no Karpenter release (a Kubernetes version typed into "Chart Version") is not used, and the note says why', async () => {
    const r = await scan([versions('kubernetes-version-in-chart-field.md')]);
    expect(r.snapshot.controller.version).toBeUndefined();
    expect(r.snapshot.controller.note).toContain('"Chart Version: 1.27.4"');
    expect(r.snapshot.controller.note).toContain('1.27.4 is not a Karpenter release');
    expect(r.snapshot.controller.note).toContain('reads like a Kubernetes version');
    // Nothing is judged against a version the ticket did not really state.
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('that the objects read back from the cluster contradict (a Provisioner on "v0.36.2") is not used', async () => {
    const r = await scan([versions('v1alpha5-read-back-contradicts.md')]);
    expect(r.snapshot.controller.version).toBeUndefined();
    expect(r.snapshot.controller.note).toContain('"Karpenter Version: v0.36.2"');
    expect(r.snapshot.controller.note).toContain('v1alpha5 Provisioner objects point to ≤ v0.32');
  });

  it('is used when the only contrary object is a manifest the user pasted: that manifest is what the version refuses', async () => {
    const r = await scan([versions('v1beta1-manifest-on-v1.md')]);
    expect(r.snapshot.controller.version).toEqual([1, 1, 2]);
    expect(r.findings.map((f) => [f.ruleId, f.severity])).toContainEqual(['deprecated-karpenter-api', 'error']);
  });

  it('is used beside console-format records: v0.32–v0.33 still wrote them when logEncoding said so', async () => {
    const r = await scan([versions('console-logs-v0.32.md')]);
    expect(r.snapshot.controller.version).toEqual([0, 32, 4]);
    expect(r.snapshot.controller.note ?? '').not.toContain('is not used');
  });

  it('is used when it agrees with the objects the ticket shows', async () => {
    const r = await scan([`${FIXTURES}tickets/fenced-nodeclaim.md`]);
    expect(r.snapshot.controller.version).toEqual([1, 1, 1]);
    expect(r.snapshot.controller.note ?? '').not.toContain('is not used');
  });
});

describe('a stated minor series (patch not stated)', () => {
  it('is the series, printed as such: "karpenter version : v0.33" is 0.33 with its patch unknown, never 0.33.0', async () => {
    const r = await scan([versions('series-template-v0.33.md')]);
    expect(r.snapshot.controller.version).toEqual([0, 33, 0]);
    expect(r.snapshot.controller.versionSeries).toBe(true);
    expect(r.report.snapshot.karpenterVersion).toBe('0.33');
    expect(r.snapshot.controller.versionEvidence).toContain('"karpenter version : v0.33"');
  });

  it('is refined by a release in it stated elsewhere (`--version 0.36.2` under "Karpenter v0.36.x"), with no disagreement noted', async () => {
    const r = await scan([versions('series-refined-by-helm-command.md')]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.36.2');
    expect(r.snapshot.controller.versionSeries).toBeUndefined();
    expect(r.snapshot.controller.note ?? '').not.toContain('also states');
  });

  it('answers version questions only where every patch answers alike', async () => {
    const { karpenterFacts } = await import('../src/rules/support.js');
    const facts = karpenterFacts({ version: [1, 2, 0], versionSeries: true, featureGates: {} } as never);
    expect(facts.label).toBe('v1.2 (patch not stated)');
    expect([facts.atLeast('1.2.0'), facts.atLeast('1.2.4'), facts.atLeast('1.3.0'), facts.atLeast('1.1.6')]).toEqual([true, undefined, false, true]);
    expect(notARelease([1, 27, 0], true)).toContain('1.27 is not a Karpenter series');
  });

  it('near miss: a sentence naming two versions (an upgrade, what was tried before) states none', async () => {
    const r = await scan([versions('two-versions-upgrade-sentence.md')]);
    expect(r.snapshot.controller.version).toBeUndefined();
    expect(r.snapshot.controller.note ?? '').toBe('');
  });
});

describe('a Go stack trace names the core module it was built with (docs/karpenter-behaviour.md §0.1)', () => {
  it("bounds a stated version: a v0.29 pseudo-version frame under a panic outweighs the template's v0.27.0", async () => {
    const r = await scan([versions('panic-trace-over-template-v0.29.md')]);
    expect(r.snapshot.controller.version).toBeUndefined();
    expect(r.snapshot.controller.note).toBe(
      `"__Karpenter Version:__ v0.27.0" (${versions('panic-trace-over-template-v0.29.md')}:3) is not used as the Karpenter version: ` +
        `a stack trace runs github.com/aws/karpenter-core@v0.29.3-0.20230802171435-6d0f0a2c1b9e (${versions('panic-trace-over-template-v0.29.md')}:17), ` +
        'so the controller is v0.29.x or v0.30.x',
    );
  });

  it('says the series when nothing states a version, and never takes it for one (a tagged v0.24.0 frame in a zap stacktrace)', async () => {
    const r = await scan([versions('zap-stacktrace-core-v0.24.txt')]);
    expect(r.snapshot.controller.version).toBeUndefined();
    expect(r.snapshot.controller.note).toBe(
      `a stack trace runs github.com/aws/karpenter-core@v0.24.0 (${versions('zap-stacktrace-core-v0.24.txt')}:3), so the controller is v0.24.x`,
    );
  });
});

describe('notARelease', () => {
  it.each(['0.5.0', '0.31.1', '0.37.7', '1.0.0', '1.14.1', '1.18.0'])('%s can be a release', (v) => expect(notARelease(parseVersion(v)!)).toBeUndefined());
  it.each(['0.38.0', '1.26.1', '2.0.0', '0.0.9'])('%s cannot', (v) => expect(notARelease(parseVersion(v)!)).toMatch(/is not a Karpenter release/));
});
