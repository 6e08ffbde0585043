/**
 * Files parsed whole carry no line numbers: the snapshot finds them only for what a report cites. Building the
 * snapshot (its events view, the reference time) must not re-read every events file, and a place written into a
 * finding's text must carry its real line even while lookups are deferred.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/types.js';
import type { LoadResult } from '../src/loaders/types.js';
import { Snapshot } from '../src/snapshot/snapshot.js';

const event = (name: string, pod: string, at: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'billing', creationTimestamp: at },
    involvedObject: { kind: 'Pod', namespace: 'billing', name: pod },
    reason: 'Scheduled',
    message: `Successfully assigned billing/${pod} to ip-10-4-7-21.eu-west-1.compute.internal`,
    type: 'Normal',
    source: { component: 'default-scheduler' },
    lastTimestamp: at,
  }) as unknown as KubeObject;

function load(located: string[]): LoadResult {
  const objects = [event('invoice-7c9f.17e2', 'invoice-7c9f', '2025-03-02T08:14:09Z'), event('ledger-5d2b.17e3', 'ledger-5d2b', '2025-03-02T08:15:40Z')];
  return {
    objects: objects.map((object, unit) => ({ object, provenance: { source: 'billing/events.json', fsPath: '/dump/billing/events.json', line: 0, unit } })),
    logs: [],
    skipped: [],
    listedKinds: new Set(['/Event']),
    sources: ['/dump'],
    filesRead: 1,
    locate: (fsPath) => {
      located.push(fsPath);
      return [12, 31];
    },
  };
}

describe('line lookups of files parsed whole', () => {
  it('building the snapshot and its events view reads no events file for lines', () => {
    const located: string[] = [];
    const s = new Snapshot(load(located));
    expect(s.events()).toHaveLength(2);
    expect(s.referenceTime.iso).toBe('2025-03-02T08:15:40.000Z');
    expect(located).toEqual([]);
  });

  it('while deferred, provenance notes the file and provenanceWithLine finds the line of the one record cited', () => {
    const located: string[] = [];
    const s = new Snapshot(load(located));
    const [, second] = s.events();
    s.deferLineLookups(true);
    expect(s.provenance(second!.object)?.line).toBe(0);
    expect(s.wantedLineFiles()).toEqual([{ fsPath: '/dump/billing/events.json', source: 'billing/events.json' }]);
    expect(s.provenanceWithLine(second!.object)?.line).toBe(31);
    expect(located).toEqual(['/dump/billing/events.json']);
  });
});
