/** The terminal report's wrapper: lines break at spaces only, and a shell command a user copies stays whole. */
import { describe, expect, it } from 'vitest';
import { commandSpans, wrapText } from '../src/reporters/wrap.js';

const longest = (lines: string[]) => Math.max(...lines.map((l) => l.length));

describe('wrapText', () => {
  it('breaks prose at spaces, never inside a word', () => {
    const text =
      'Node ip-10-20-120-33.us-west-2.compute.internal still has taint node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule 41m after it was created';
    const lines = wrapText(text, 40);
    expect(lines).toEqual([
      'Node',
      'ip-10-20-120-33.us-west-2.compute.internal',
      'still has taint',
      'node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule',
      '41m after it was created',
    ]);
    expect(lines.join(' ')).toBe(text);
  });

  it('reads "kubectl describe/get output" in prose as words, not as a command kept whole', () => {
    expect(commandSpans('3 time(s) that kubectl describe/get output shows only as ages')).toEqual([]);
    expect(wrapText('3 time(s) that kubectl describe/get output shows only as ages were counted back', 40)).toEqual([
      '3 time(s) that kubectl describe/get',
      'output shows only as ages were counted',
      'back',
    ]);
  });

  it('ends a line at a clause dash rather than starting the next with it, unless the word before is too long', () => {
    expect(wrapText('runs only with the NodeRepair feature gate — off by default', 44)).toEqual([
      'runs only with the NodeRepair feature gate —',
      'off by default',
    ]);
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(wrapText(`${digest} - Karpenter v1.2.1 from image`, 40)).toEqual([digest, '- Karpenter v1.2.1 from image']);
  });

  it('hangs the lines of a list item under its text', () => {
    expect(wrapText('2. Find the cause: the cloud-controller-manager removes this taint', 30)).toEqual([
      '2. Find the cause: the',
      '   cloud-controller-manager',
      '   removes this taint',
    ]);
  });

  it('moves a command that does not fit to a line of its own, whole, even past the width', () => {
    const cmd = 'kubectl taint node ip-10-20-120-33.us-west-2.compute.internal node.cloudprovider.kubernetes.io/uninitialized:NoSchedule-';
    const lines = wrapText(`1. Unblock scheduling now: ${cmd}`, 80);
    expect(lines).toEqual(['1. Unblock scheduling now:', `   ${cmd}`]);
  });

  it('keeps a short command inline and ends it where the sentence resumes', () => {
    const lines = wrapText('4. NodeClaim data-7hq2m is still being deleted: kubectl get nodeclaim data-7hq2m -o yaml to see what the drain waits for.', 60);
    expect(lines).toEqual([
      '4. NodeClaim data-7hq2m is still being deleted:',
      '   kubectl get nodeclaim data-7hq2m -o yaml to see what the',
      '   drain waits for.',
    ]);
  });

  it('does not end a command at a space inside quotes, and keeps its brackets with it', () => {
    const line = "Check the instance (kubectl get node n1 -o jsonpath='{.spec.providerID} and more') exists";
    const [[start, end]] = commandSpans(line) as [[number, number]];
    expect(line.slice(start, end)).toBe("kubectl get node n1 -o jsonpath='{.spec.providerID} and more')");
    const lines = wrapText(line, 40);
    expect(lines).toContain("(kubectl get node n1 -o jsonpath='{.spec.providerID} and more')");
  });

  it('ends a command at two spaces, a comma before prose, or a backtick; chains commands joined by ;', () => {
    const spans = (l: string) => commandSpans(l).map(([s, e]) => l.slice(s, e));
    expect(spans('Replace it: kubectl delete nodeclaim g-q9h5n  (Karpenter drains it)')).toEqual(['kubectl delete nodeclaim g-q9h5n']);
    expect(spans('kubectl edit nodepool general, and add:')).toEqual(['kubectl edit nodepool general,']);
    expect(spans('run `kubectl get pods -A` first')).toEqual(['kubectl get pods -A']);
    expect(spans('kubectl -n data rollout status sts/kafka; kubectl -n data get pvc -o wide')).toEqual([
      'kubectl -n data rollout status sts/kafka; kubectl -n data get pvc -o wide',
    ]);
    expect(spans('the queue for source aws.health exists')).toEqual([]);
  });

  it('keeps preformatted lines (YAML, heredocs) as they are, under the list item they belong to', () => {
    const fix = '1. Allow the zone:\n  kubectl edit nodepool data\n  - key: topology.kubernetes.io/zone\n    operator: In\n2. Then check it.';
    expect(wrapText(fix, 30)).toEqual([
      '1. Allow the zone:',
      '   kubectl edit nodepool data',
      '   - key: topology.kubernetes.io/zone',
      '     operator: In',
      '2. Then check it.',
    ]);
  });

  it('wraps an indented # comment as a comment', () => {
    const lines = wrapText('  # spec.template.spec.terminationGracePeriod: 48h  — pods still blocked then are deleted', 50);
    expect(lines.every((l) => l.startsWith('  # '))).toBe(true);
    expect(longest(lines)).toBeLessThanOrEqual(50);
  });
});
