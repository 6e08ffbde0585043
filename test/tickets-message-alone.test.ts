/**
 * Tickets that quote a message alone (fixtures/tickets/alone/): the cause it states is named as the envelope would
 * have it named — a stated line of unknown time — and codes that the ticket mentions without saying they happened
 * (a link, a negation, a question, another cloud, kubectl's own refusal) are read as nothing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'alone', name);

async function read(name: string) {
  const r = await scan([file(name)], { now: '2026-01-01T00:00:00Z' });
  return {
    logs: r.load.logs.map((l) => `@${l.provenance.line} ${l.time ?? '-'} ${l.level ?? '-'} ${l.message.slice(0, 48)}`),
    findings: r.findings.map((f) => `${f.ruleId} ${f.severity}`),
    stated: r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => `${n.ruleId}: ${n.reason}`),
  };
}

describe('a message quoted alone in a ticket', () => {
  it('a capacity code in a sentence is a record from the code on, of unknown time; the cause is stated', async () => {
    const r = await read('ice-in-sentence-v1.md');
    expect(r.logs).toEqual(['@3 - ERROR InsufficientInstanceCapacity for g6.12xlarge in ']);
    expect(r.findings).toEqual([]);
    expect(r.stated.map((s) => s.split(':')[0])).toEqual(['insufficient-capacity-all-offerings']);
  });

  it('strict decoding quoted without its kind: a field of v1alpha5 Provisioner, so manifest and CRDs are of different versions', async () => {
    const r = await read('strict-decoding-alone-v1alpha5-field.md');
    expect(r.logs).toEqual(['@3 - ERROR strict decoding error: unknown field "spec.kubel']);
    expect(r.findings).toEqual([]);
    expect(r.stated).toEqual([
      expect.stringMatching(
        /^karpenter-api-version-mismatch: The API server reports the field spec\.kubeletConfiguration unknown; it is a field of Provisioner karpenter\.sh\/v1alpha5: the manifest is written for another Karpenter API version/,
      ),
    ]);
  });

  it('a ≤ v0.31 console chain quoted without time, level and logger states the full subnet', async () => {
    const r = await read('console-chain-quoted-v0.31.md');
    expect(r.logs).toEqual(['@5 - ERROR launching machine, creating cloud provider insta']);
    expect(r.findings).toEqual([]);
    expect(r.stated.map((s) => s.split(':')[0])).toEqual(['subnet-addresses-exhausted']);
  });

  it("the v1 SDK's `caused by:` line under a console record is the rest of that record, not a message alone", async () => {
    const r = await scan([join(FIXTURES, 'tickets', 'causes', 'ec2-endpoint-timeout-v0.29.txt')], { now: '2026-01-01T00:00:00Z' });
    expect(r.load.logs.map((l) => `@${l.provenance.line} ${/i\/o timeout$/.test(l.message)}`)).toEqual(['@1 true', '@3 true']);
    expect(r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => n.ruleId)).toEqual(['no-instance-type-fits', 'launch-refused-by-cloud-provider']);
  });

  it('codes in a link, a negated or supposed clause, a question, another cloud and kubectl’s own refusal: nothing read', async () => {
    const r = await read('codes-not-seen-near-miss.md');
    expect(r.logs).toEqual([]);
    expect(r.findings).toEqual([]);
    expect(r.stated).toEqual([]);
  });
});
