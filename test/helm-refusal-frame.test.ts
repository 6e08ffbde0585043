/**
 * Helm's frame around a refusal (`Error: UPGRADE FAILED: …`, `Error: INSTALLATION FAILED: …`, with `cannot patch "x"
 * with kind K: ` when the object existed): the inner refusal is read as kubectl's would be, and Helm stays who printed it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { applyRefusalIn, refusedFieldUnnamedKind, refusedUnknownField } from '../src/kube/messages/api-refusals.js';
import { parseLogLine } from '../src/loaders/logs.js';

describe("Helm's frame around an apply refusal", () => {
  it('an upgrade patching a NodePool whose field the v1 schema lacks: strict decoding, printed by Helm', () => {
    const line =
      'Error: UPGRADE FAILED: cannot patch "batch" with kind NodePool: NodePool in version "v1" cannot be handled as a NodePool: strict decoding error: unknown field "spec.template.spec.kubelet"';
    expect(applyRefusalIn(line)).toMatchObject({ signal: 'strict-decoding', kind: 'NodePool', printedBy: 'helm' });
    expect(refusedUnknownField(line)).toEqual({ kind: 'NodePool', apiVersion: 'karpenter.sh/v1', path: 'spec.template.spec.kubelet' });
    expect(parseLogLine(line, 1, { source: 'ticket.md' })?.fields).toMatchObject({ printedBy: 'helm', refusal: 'strict-decoding' });
  });

  it('a first install refused by the CRD schema, the object named', () => {
    const line = 'Error: INSTALLATION FAILED: EC2NodeClass.karpenter.k8s.aws "spot" is invalid: spec.amiSelectorTerms: Required value';
    expect(applyRefusalIn(line)).toMatchObject({ signal: 'schema-or-cel', kind: 'EC2NodeClass', name: 'spot', printedBy: 'helm' });
  });

  it('strict decoding without a kind, inside the frame: the field is still read', () => {
    expect(refusedFieldUnnamedKind('Error: UPGRADE FAILED: strict decoding error: unknown field "spec.kubeletConfiguration"')).toBe(
      'spec.kubeletConfiguration',
    );
  });

  it('kubectl keeps its own name; a Helm failure that is no refusal is not one', () => {
    expect(applyRefusalIn('strict decoding error: unknown field "spec.x"')?.printedBy).toBeUndefined();
    expect(applyRefusalIn('Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress')).toBeUndefined();
    expect(applyRefusalIn('Error: UPGRADE FAILED: timed out waiting for the condition')).toBeUndefined();
  });

  it('a ticket quoting the Helm error in a code block: one refusal record, printed by Helm, of unknown time', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'karpdoctor-helm-')), 'ticket.md');
    writeFileSync(
      file,
      'Our chart bump to 1.0.3 stops at the NodePool every time:\n\n```\nError: UPGRADE FAILED: cannot patch "general" with kind NodePool: NodePool in version "v1" cannot be handled as a NodePool: strict decoding error: unknown field "spec.disruption.expireAfter"\n```\n\nRolling back works.\n',
    );
    const { logs } = await loadInputs([file], {});
    expect(logs.map((l) => [l.fields.printedBy, l.fields.refusal, l.time])).toEqual([['helm', 'strict-decoding', undefined]]);
  });
});
