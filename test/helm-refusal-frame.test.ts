/**
 * Helm's frame around a refusal (`Error: UPGRADE FAILED: …`, `Error: INSTALLATION FAILED: …`, with `cannot patch "x"
 * with kind K: ` when the object existed): the inner refusal is read as kubectl's would be, and Helm stays who printed it.
 */
import { describe, expect, it } from 'vitest';
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
});
