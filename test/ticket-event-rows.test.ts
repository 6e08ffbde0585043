/**
 * Events as people paste them without the description around them: a header-only table shifted by a space, a lone
 * row whose message wrapped, a row quoted in bold prose, tables under a one-word label or a `| grep -A 30 "Events:"`
 * command. Each is asserted as a person reads it (reason, type, object, count, message) and for the exact findings.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';
import { inlineEventRow, objectNamedByEvents, parseEventRow, sniffEventRows } from '../src/loaders/readers/event-rows.js';
import { simulatedPods, uninitializedTarget } from '../src/snapshot/messages/simulation.js';

const fixture = (name: string) => join(FIXTURES, 'tickets', 'events', name);
const NOW = { now: '2024-05-02T12:00:00Z' };

async function read(name: string, only?: string[]) {
  const r = await scan([fixture(name)], { ...NOW, ...(only ? { only } : {}) });
  const events = r.snapshot.events().map((e) => ({
    type: e.type,
    reason: e.reason,
    object: `${e.involved.kind}/${e.involved.namespace ? `${e.involved.namespace}/` : ''}${e.involved.name}`,
    count: e.count,
    from: e.component,
    message: e.message,
    line: r.snapshot.provenance(e.object)?.line,
  }));
  return { r, events, findings: r.findings.map((f) => `${f.severity} ${f.ruleId} ${f.object.kind}/${f.object.name}`) };
}

describe('an Events row', () => {
  it('is read by its columns, with a repeat count in its age and an empty message', () => {
    expect(parseEventRow('  Normal   Unconsolidatable   12m (x3 over 26m)   karpenter   SpotToSpotConsolidation is disabled')).toEqual({
      type: 'Normal',
      reason: 'Unconsolidatable',
      age: '12m (x3 over 26m)',
      from: 'karpenter',
      message: 'SpotToSpotConsolidation is disabled',
    });
    expect(parseEventRow('Normal   Starting   28m   kube-proxy   ')).toMatchObject({ reason: 'Starting', from: 'kube-proxy', message: '' });
    // Prose that starts with a type word is not a row: no reason, age and source after it.
    expect(parseEventRow('Normal behaviour would be to consolidate it')).toBeUndefined();
    expect(parseEventRow('LAST SEEN   TYPE     REASON   OBJECT   MESSAGE')).toBeUndefined();
  });

  it('is found inside a sentence only with its type, reason, age and source in order', () => {
    expect(inlineEventRow('**Error Message: Normal DisruptionBlocked 86s (x2 over 3m28s) karpenter Nodeclaim does not have an associated node**')).toBe(
      'Normal DisruptionBlocked 86s (x2 over 3m28s) karpenter Nodeclaim does not have an associated node',
    );
    expect(inlineEventRow('In normal operation Karpenter consolidates within 5m.')).toBeUndefined();
  });

  it('makes a text rows only when every line is a header, a rule, a row or a wrapped message', () => {
    expect(sniffEventRows(' Type  Reason  Age  From  Message\n ----  ------  ---  ----  -------\n Normal  Foo  3m  kubelet  bar\n')).toBe(true);
    expect(sniffEventRows('some words\nNormal  Foo  3m  kubelet  bar\n')).toBe(false);
  });

  it('names its object only from messages that name it in fixed words, and only when they agree', () => {
    expect(objectNamedByEvents(['Starting kubelet.', 'Node ip-1 status is now: NodeReady'])).toMatchObject({ kind: 'Node', metadata: { name: 'ip-1' } });
    expect(objectNamedByEvents(['Successfully assigned web/api-1 to ip-1'])).toMatchObject({ kind: 'Pod', metadata: { name: 'api-1', namespace: 'web' } });
    expect(objectNamedByEvents(['Node ip-1 status is now: NodeReady', 'Node ip-2 status is now: NodeReady'])).toBeUndefined();
    expect(objectNamedByEvents(["Can't replace with a cheaper node"])).toBeUndefined();
  });
});

describe('events pasted without their description', () => {
  it('a lone row in a shell fence, its message wrapped: one event, and the pod it names fits no instance type', async () => {
    const { r, events, findings } = await read('lone-row-wrapped-v0.29.md');
    expect(r.report.snapshot.skipped).toEqual([{ source: fixture('lone-row-wrapped-v0.29.md'), line: 1, reason: 'prose (5 paragraphs), not objects or logs' }]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Normal', reason: 'Unconsolidatable', object: '/', count: 4, from: 'karpenter', line: 6 });
    // The wrapped line is joined back where the terminal broke it.
    expect(events[0]!.message).toContain('kubernetes.io/os In [linux], team In [reporting] (no instance type has enough resources)');
    expect(findings).toEqual(['warning no-instance-type-fits Pod/nightly-rollup-7c9d5b8f64-w8tzn']);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'reporting', name: 'nightly-rollup-7c9d5b8f64-w8tzn' });
    expect(f.message).toContain('Provisioner reporting-batch: no instance type satisfied resources {"cpu":"40350m"');
    expect(f.evidence[0]!.note).toBe("Karpenter's disruption simulation could not place the pod (x4)");
  });

  it('Events tables under a one-word label: each about the object its messages name, the third about an unknown one', async () => {
    const { r, events, findings } = await read('tables-named-by-messages.md');
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (5 paragraphs), not objects or logs']);
    expect(events.map((e) => `${e.reason} ${e.object} x${e.count} @${e.line}`)).toEqual([
      'Starting Node/ip-10-8-44-17.eu-west-1.compute.internal x1 @8',
      'NodeHasSufficientMemory Node/ip-10-8-44-17.eu-west-1.compute.internal x2 @9',
      'RegisteredNode Node/ip-10-8-44-17.eu-west-1.compute.internal x1 @10',
      'NodeReady Node/ip-10-8-44-17.eu-west-1.compute.internal x1 @11',
      'DeprovisioningTerminating Node/ip-10-8-44-17.eu-west-1.compute.internal x1 @12',
      'Scheduled Pod/media/thumbnailer-6f7b8c9d4-zt5qr x1 @22',
      'Pulling Pod/media/thumbnailer-6f7b8c9d4-zt5qr x1 @23',
      'Unconsolidatable / x2 @32',
    ]);
    expect(r.snapshot.partialFrom(r.snapshot.events()[7]!.object)).toBe('an Events table of kubectl describe whose object the paste does not name');
    expect(findings).toEqual([]);
  });

  it('`| grep -A 30 "Events:"` on a quoted command line: the events are the node\'s; the gate it names is shown, not judged', async () => {
    const { r, events, findings } = await read('grep-events-quoted-command.md');
    expect(events.map((e) => `${e.reason} ${e.object} x${e.count}`)).toEqual([
      'Starting Node/ip-10-31-7-201.us-east-2.compute.internal x1',
      'Starting Node/ip-10-31-7-201.us-east-2.compute.internal x1',
      'NodeReady Node/ip-10-31-7-201.us-east-2.compute.internal x1',
      'Unconsolidatable Node/ip-10-31-7-201.us-east-2.compute.internal x5',
    ]);
    expect(events[0]!.from).toBe('kube-proxy');
    expect(findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'consolidation-disabled-for-underused-nodes')).toEqual([
      {
        ruleId: 'consolidation-disabled-for-underused-nodes',
        reason:
          'stated by an event, not a NodePool policy this rule judges: Node ip-10-31-7-201.us-east-2.compute.internal: Karpenter said "SpotToSpotConsolidation is disabled, can\'t replace a spot node with a spot node" (seen 5 times); ' +
          'the SpotToSpotConsolidation feature gate is off (its default), so Karpenter may delete this spot node but never replace it with a cheaper spot node: ' +
          'enable it with the chart value settings.featureGates.spotToSpotConsolidation=true (FEATURE_GATES=SpotToSpotConsolidation=true)',
        stated: true,
      },
    ]);
  });

  it('a header-only table shifted one space by the paste: one event about an unknown object', async () => {
    const { r, events, findings } = await read('shifted-header-table.md');
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (2 paragraphs), not objects or logs']);
    expect(events).toEqual([
      { type: 'Normal', reason: 'Unconsolidatable', object: '/', count: 7, from: 'karpenter', message: "Can't remove without creating 2 candidates", line: 5 },
    ]);
    expect(r.snapshot.events()[0]).toMatchObject({ firstSeen: '2024-05-02T10:28:00Z', lastSeen: '2024-05-02T11:56:20Z' });
    expect(findings).toEqual([]);
  });

  it('a row quoted in bold prose: one event with its count and ages, nothing else taken from the sentence', async () => {
    const { r, events, findings } = await read('bold-inline-row.md');
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (3 paragraphs), not objects or logs']);
    expect(events).toEqual([
      { type: 'Normal', reason: 'DisruptionBlocked', object: '/', count: 3, from: 'karpenter', message: 'Nodeclaim does not have an associated node', line: 4 },
    ]);
    expect(findings).toEqual([]);
  });

  it("only a message in Karpenter's own wording, re-wrapped: one event of unknown count and object; the uninitialized node it names is shown", async () => {
    const { r, events, findings } = await read('message-alone-rewrapped-v1.0.md');
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (4 paragraphs), not objects or logs']);
    expect(events).toEqual([
      {
        type: 'Normal',
        reason: 'Unconsolidatable',
        object: '/',
        count: 1,
        from: 'karpenter',
        message:
          'not all pods would schedule, shop/cart-api-5b7c9d8f6d-r4nqx => would schedule against uninitialized nodeclaim/general-h7w2k, ' +
          'node/ip-10-60-3-88.ap-south-1.compute.internal shop/cart-worker-7d6c5b4f9-x9pl2 => would schedule against ' +
          'uninitialized nodeclaim/general-h7w2k, node/ip-10-60-3-88.ap-south-1.compute.internal',
        line: 8,
      },
    ]);
    const ev = r.snapshot.events()[0]!;
    expect(r.snapshot.partialFrom(ev.object)).toBe('an event message pasted without its row (its reason read from its wording)');
    expect(ev.lastSeen).toBeUndefined();
    // Not a scheduling misfit: no-instance-type-fits stays silent; the node is shown as uninitialized, not judged tainted.
    expect(findings).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'uninitialized-taint-lingering')).toEqual([
      {
        ruleId: 'uninitialized-taint-lingering',
        reason:
          "stated by an event: Karpenter's disruption simulation would place 2 pods (shop/cart-api-5b7c9d8f6d-r4nqx, shop/cart-worker-7d6c5b4f9-x9pl2) on " +
          'node ip-10-60-3-88.ap-south-1.compute.internal (NodeClaim general-h7w2k), which is uninitialized; whether node.cloudprovider.kubernetes.io/uninitialized ' +
          'is what keeps it so is not shown: add `kubectl get node ip-10-60-3-88.ap-south-1.compute.internal -o yaml` (spec.taints) and ' +
          '`kubectl get nodeclaim general-h7w2k -o yaml` (the Initialized condition)',
        stated: true,
      },
    ]);
  });
});

describe("Karpenter's simulation messages", () => {
  it("are split into the pods it could not place and the error for each, in every generation's opening", () => {
    expect(
      simulatedPods('Cannot disrupt Node: not all pods would schedule, a/web-1 => incompatible with nodepool "x", no instance type satisfied resources'),
    ).toEqual([{ pod: 'a/web-1', error: 'incompatible with nodepool "x", no instance type satisfied resources' }]);
    expect(
      simulatedPods('Not all pods would schedule, a/web-1 => would schedule against uninitialized nodeclaim/p-1, node/ip-1, b/job-2 => did not tolerate taint'),
    ).toEqual([
      { pod: 'a/web-1', error: 'would schedule against uninitialized nodeclaim/p-1, node/ip-1' },
      { pod: 'b/job-2', error: 'did not tolerate taint' },
    ]);
    expect(simulatedPods("Can't replace with a cheaper node")).toEqual([]);
    expect(uninitializedTarget('would schedule against uninitialized nodeclaim/p-1, node/ip-1')).toEqual({ nodeClaim: 'p-1', node: 'ip-1' });
    expect(uninitializedTarget('would schedule against uninitialized nodeclaim/p-1')).toEqual({ nodeClaim: 'p-1' });
  });
});
