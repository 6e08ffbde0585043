/**
 * What the input is called decides how every "not in the input" line is worded (snapshot/input-words.ts): a paste
 * shows what was chosen, a dump was read whole, a repository holds what its authors wrote. Decided by what read the
 * files, so a describe file alone is a paste however it is named.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingInputsText, noneIn } from '../src/snapshot/input-words.js';
import { FIXTURES, scan } from './support/scan.js';

const kind = (name: string) => join(FIXTURES, 'tickets', 'input-kind', name);

describe('the input is named by what read it', () => {
  it.each([
    ['describe-alone', 'the ticket'],
    ['get-table-alone', 'the ticket'],
    ['dump', 'the dump'],
    ['repository', 'the repository'],
    ['dump-and-describe', 'the input'],
  ] as const)('%s is %s', async (dir, name) => {
    const r = await scan([kind(dir)]);
    expect(r.snapshot.inputName).toBe(name);
  });

  it('a rule that cannot run says what the paste lacks and the command that settles it; a dump says it contains none', async () => {
    const pasted = await scan([kind('describe-alone')]);
    const dumped = await scan([kind('dump')]);
    const byRule = (r: typeof pasted, id: string) => r.notEvaluated.find((n) => n.ruleId === id);
    expect(byRule(pasted, 'pdb-blocks-eviction')).toMatchObject({ missing: expect.arrayContaining(['PodDisruptionBudget']) });
    expect(byRule(pasted, 'pdb-blocks-eviction')!.reason).toMatch(
      /^the ticket shows no .*PodDisruptionBudgets.* — .*`kubectl get pdb -A -o yaml`.* would settle it$/,
    );
    expect(byRule(dumped, 'pdb-blocks-eviction')!.reason).toMatch(/^the dump contains no .*PodDisruptionBudgets.* \(add the output of /);
  });
});

describe('input-words', () => {
  const as = (inputName: 'the ticket' | 'the repository' | 'the dump' | 'the cluster' | 'the input') => ({ inputName });

  it('words one missing input by each kind of input', () => {
    expect(missingInputsText(as('the ticket'), ['Pod'])).toBe('the ticket shows no Pods — `kubectl get pods -A -o yaml` would settle it');
    expect(missingInputsText(as('the repository'), ['Pod'])).toBe('the scanned files hold no Pods (add the output of `kubectl get pods -A -o yaml`)');
    expect(missingInputsText(as('the dump'), ['Pod'])).toBe('the dump contains no Pods (add the output of `kubectl get pods -A -o yaml`)');
    expect(missingInputsText(as('the cluster'), ['Pod'])).toBe('the cluster has no Pods (add the output of `kubectl get pods -A -o yaml`)');
    expect(missingInputsText(as('the input'), ['Pod'])).toBe('the input contains no Pods (add the output of `kubectl get pods -A -o yaml`)');
  });

  it('joins inputs any one of which would do with "or"', () => {
    expect(missingInputsText(as('the ticket'), ['Node', 'NodeClaim'], 'or')).toBe(
      'the ticket shows no Nodes or NodeClaims — `kubectl get nodes -o yaml`, `kubectl get nodeclaims -o yaml` would settle it',
    );
    expect(noneIn(as('the dump'), 'PersistentVolume pv-1')).toBe('the dump contains no PersistentVolume pv-1');
  });
});

describe('a refusal quoted without who printed it', () => {
  it("is neither the controller's record nor kubectl's: the finding says either sender is possible", async () => {
    const r = await scan([kind('bare-webhook-denial.md')]);
    const [f] = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f).toMatchObject({ messageId: 'statedRefusalQuotedAlone', data: expect.objectContaining({ poolKind: 'NodePool' }), object: { kind: 'NodePool' } });
    expect(f!.evidence.map((e) => e.note)).toEqual(['quoted without who printed it']);
    expect(r.snapshot.logs.map((l) => l.fields)).toEqual([{ quotedAlone: true }]);
  });

  it("near miss: the same denial inside a controller record stays the controller's", async () => {
    const r = await scan([join(FIXTURES, 'tickets', 'causes', 'machine-refused-webhook-v0.31.txt')]);
    const [f] = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f).toMatchObject({ messageId: 'statedObjectRefused' });
    expect(r.snapshot.logs.every((l) => l.fields.quotedAlone === undefined)).toBe(true);
  });
});
