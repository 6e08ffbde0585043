/**
 * The controller states its own version at start ("discovered karpenter version", a debug record of every log
 * generation): it is used when nothing that runs shows one, above what a ticket states, and below what runs now.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';

const versions = (name: string) => `${FIXTURES}tickets/versions/${name}`;

describe('the version the controller logs of itself', () => {
  it('is the version when nothing else shows one (v0.2x console record), and "discovered kube version" is not it', async () => {
    const r = await scan([versions('debug-log-console-v0.22.md')]);
    expect(r.snapshot.controller.version).toEqual([0, 22, 1]);
    expect(r.snapshot.controller.versionSource).toBe('log');
    expect(r.snapshot.controller.versionEvidence).toMatch(/^controller log: "discovered karpenter version" v0\.22\.1 \(.*debug-log-console-v0\.22\.md:\d+\)$/);
  });

  it('stands above the issue template\'s "Chart Version" (v1 JSON record), which is noted', async () => {
    const r = await scan([versions('debug-log-v1-over-chart-field.md')]);
    expect(r.snapshot.controller.version).toEqual([1, 0, 5]);
    expect(r.snapshot.controller.versionSource).toBe('log');
    expect(r.snapshot.controller.note).toContain('the input also states Karpenter 1.0.6');
  });

  it('gives way to the image that runs now, and the disagreement is noted (logs from before an upgrade)', async () => {
    const r = await scan([versions('upgraded-dump')]);
    expect(r.snapshot.controller.version).toEqual([1, 1, 0]);
    expect(r.snapshot.controller.versionSource).toBe('image');
    expect(r.snapshot.controller.note).toMatch(/"discovered karpenter version" 1\.0\.8 \(.*karpenter-previous\.log:1\) differs from v1\.1\.0 \(image\)/);
  });
});
