/**
 * `--profile` charges a view of the snapshot to the view, not to the first rule that asks for it: otherwise a rule's
 * figure depends on where it sits in the catalog, and the quick bench's budgets name the wrong rule.
 */
import { describe, expect, it } from 'vitest';
import { runRules } from '../src/engine/runner.js';
import type { Rule } from '../src/engine/rule.js';
import { KIND } from '../src/kube/kinds.js';
import { loadInputs } from '../src/loaders/load.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { ViewClock } from '../src/snapshot/view-clock.js';
import { FIXTURES } from './support/scan.js';

/** Keeps the thread busy for about `ms` (a sleep would cost no CPU). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('ViewClock', () => {
  it('charges a view built inside another only to itself, and adds both to what views cost in all', () => {
    // A clock that moves only when the test says so: the figures are exact whatever else the machine is doing.
    let now = 1000;
    const work = (ms: number) => void (now += ms);
    const clock = new ViewClock(() => now);
    const value = clock.time('outer', () => {
      work(20);
      return clock.time('inner', () => (work(30), 7));
    });
    expect(value).toBe(7);
    const [inner, outer] = clock.entries();
    expect(inner).toMatchObject({ view: 'inner', builds: 1, ms: 30 });
    expect(outer).toMatchObject({ view: 'outer', builds: 1, ms: 20 });
    expect(clock.total().ms).toBe(50);
  });

  it('still counts a build that throws', () => {
    const clock = new ViewClock();
    expect(() => clock.time('broken', () => (busy(5), JSON.parse('{')))).toThrow();
    expect(clock.entries()[0]).toMatchObject({ view: 'broken', builds: 1 });
  });
});

describe('rule timings exclude the views a rule was first to ask for', () => {
  it('gives the first and the second rule that read pods by node the same small figure; the view carries the build', async () => {
    const snapshot = new Snapshot(await loadInputs([`${FIXTURES}example-cluster`]));
    // Build cost made visible: the first read of pods by node goes through a view that takes at least 40 ms.
    let slow = true;
    const podsOnNode = snapshot.podsOnNode.bind(snapshot);
    snapshot.podsOnNode = (name: string) => {
      if (slow) snapshot.viewClock.time('slow pods by node', () => ((slow = false), busy(40)));
      return podsOnNode(name);
    };
    const reader = (id: string): Rule =>
      ({
        meta: { id, requires: [], defaultSeverity: 'info', specOnly: 'yes' },
        check: ({ snapshot: s }: { snapshot: Snapshot }) => void s.all(KIND.Node).map((n) => s.podsOnNode(n.metadata.name!)),
      }) as unknown as Rule;
    const run = runRules([reader('first'), reader('second')], snapshot, {}, { measureHeap: true });
    const built = snapshot.viewClock.entries().find((v) => v.view === 'slow pods by node')!;
    expect(built.ms).toBeGreaterThanOrEqual(40);
    // The snapshot's own index was built once, by the first rule, and is charged to itself.
    expect(snapshot.viewClock.entries().find((v) => v.view === 'podsByNode')).toMatchObject({ builds: 1 });
    // Charged to the rule, its figure would be the build's and more; compared with the build, not with a fixed
    // figure, so that a loaded machine does not decide the outcome.
    expect(run.timings.first).toBeLessThan(built.ms);
    expect(run.cpuTimes!.first).toBeLessThan(built.cpuMs);
  });
});
