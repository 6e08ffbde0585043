/** The engine's rule that a finding never rests on a value only the applying tool knows (engine/unknowns.ts). */
import { describe, expect, it } from 'vitest';
import { restsOnUnknown } from '../src/engine/unknowns.js';
import { UNKNOWN_VALUE, type KubeObject } from '../src/kube/types.js';
import { Snapshot } from '../src/snapshot/snapshot.js';

const pool: KubeObject = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: '${var.env}-gpu' },
  spec: { limits: UNKNOWN_VALUE, template: { spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } } },
};
const snapshot = new Snapshot({
  objects: [
    {
      object: pool,
      provenance: {
        source: 'gpu.tf',
        line: 3,
        unknown: [
          { pointer: '/metadata/name', expression: '${var.env}-gpu', line: 5 },
          { pointer: '/spec/limits', expression: 'var.gpu_limits', line: 9 },
        ],
      },
    },
  ],
  logs: [],
  skipped: [],
  listedKinds: new Set(),
  sources: ['gpu.tf'],
  filesRead: 1,
});
const finding = (pointer: string | undefined, value?: unknown) => ({
  object: pool,
  message: 'm',
  fix: ['f'],
  ...(pointer !== undefined ? { pointer } : {}),
  evidence: [{ object: pool, ...(pointer !== undefined ? { path: pointer } : {}), ...(value !== undefined ? { value } : {}) }],
});

describe('a finding that rests on an unknown value', () => {
  it.each([
    ['/spec/limits', true],
    ['/spec/limits/cpu', true],
    ['/spec', true],
    ['/spec/template/spec/taints/0', false],
    ['', false],
  ])('pointer %j: withdrawn %s', (pointer, withdrawn) => {
    expect(restsOnUnknown(finding(pointer), snapshot) !== undefined).toBe(withdrawn);
  });

  it('a quoted unknown value withdraws it wherever it was read, and the subject is the finding object', () => {
    expect(restsOnUnknown(finding('/spec/template', UNKNOWN_VALUE), snapshot)?.subject).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      namespace: null,
      name: '${var.env}-gpu',
    });
  });
});
