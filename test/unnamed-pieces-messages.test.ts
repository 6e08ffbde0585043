/**
 * What findings say of objects a ticket shows without their names (pieces pasted from below `spec:` or `status:`,
 * typed by kind-inference.ts): every rule runs over them, and no message, not-evaluated reason or fix prints an empty
 * word where a name goes, empty quotes or "undefined". Names reach the text through one place: a placeholder called
 * `name` or `…Name` renders an empty value as NAME_NOT_SHOWN (engine/messages.ts), and displayName says the same.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMessage } from '../src/engine/messages.js';
import { NAME_NOT_SHOWN } from '../src/kube/fields.js';
import { FIXTURES, scan } from './support/scan.js';

const shapes = (name: string) => join(FIXTURES, 'tickets', 'shapes', name);

/** Texts a person reads, each with where it came from. */
async function texts(name: string, now: string) {
  const r = await scan([shapes(name)], { now });
  return {
    r,
    said: [
      ...r.findings.map((f) => ({ where: `${f.ruleId} message`, text: f.message })),
      ...r.findings.map((f) => ({ where: `${f.ruleId} fix`, text: f.fix })),
      ...r.run.notEvaluatedFor.map((n) => ({ where: `${n.ruleId} not evaluated`, text: n.reason })),
      ...r.run.notEvaluated.map((n) => ({ where: `${n.ruleId} not evaluated`, text: n.reason })),
    ],
  };
}

/**
 * An empty name as it shows: two spaces inside a sentence (fixes align their comments, so not there), `""` or `''`,
 * a command's name or a selector's value left out, "undefined".
 */
function emptyNames(said: Array<{ where: string; text: string }>): string[] {
  const anywhere = [
    /""|''/,
    /\bundefined\b/,
    /kubectl (edit|patch) [a-z0-9.]+ +(-|$)/m,
    /kubectl (get|describe) [a-z0-9.]+ {2}/,
    /nodepool=[\s`']/,
    /provisioner-name=[\s`']/,
  ];
  const bad = (s: { where: string; text: string }) => anywhere.some((re) => re.test(s.text)) || (!s.where.endsWith(' fix') && /\S {2}\S/.test(s.text));
  return said.filter(bad).map((s) => `${s.where}: ${s.text}`);
}

describe('unnamed pieces of a ticket in what findings say', () => {
  it('a NodePool spec piece, an EC2NodeClass spec and status, a NodeClaim status: named "(name not shown)" in every message', async () => {
    const { r, said } = await texts('pieces-unnamed-symptoms.md', '2025-06-02T12:00:00Z');
    // The rules this ticket's pieces show a symptom for fire on the unnamed objects (else the test would prove nothing).
    const fired = r.findings.map((f) => `${f.ruleId} ${f.object.kind} ${f.object.name}`);
    expect(fired).toEqual(
      expect.arrayContaining([
        'nodeclass-not-ready EC2NodeClass ',
        'disruption-budget-blocks-all NodePool ',
        'consolidation-disabled-for-underused-nodes NodePool ',
        'expire-without-termination-grace-period NodePool ',
      ]),
    );
    for (const f of r.findings.filter((f) => !f.object.name)) expect(f.message).toContain(`${f.object.kind} ${NAME_NOT_SHOWN}`);
    // The input is a ticket: what it shows is "in the ticket", not "in the repo" (Snapshot.inputName).
    expect(r.findings.find((f) => f.ruleId === 'expire-without-termination-grace-period')?.data).toMatchObject({
      who: 'workloads in the ticket cannot be evicted',
    });
    expect(emptyNames(said)).toEqual([]);
  });

  it('the other pieces fixtures (v1, v1beta1, v1alpha5) say no empty name either', async () => {
    for (const [name, now] of [
      ['pieces-v1.md', '2025-04-02T10:00:00Z'],
      ['pieces-v1beta1.md', '2024-05-10T12:00:00Z'],
      ['pieces-v1alpha5.txt', '2023-03-01T12:00:00Z'],
      ['template-or-claim.md', '2025-02-11T09:00:00Z'],
      ['pieces-elided-top.md', '2025-06-02T12:00:00Z'],
    ] as const) {
      const { said } = await texts(name, now);
      expect(emptyNames(said), name).toEqual([]);
    }
  });

  it('`...` typed at the margin between top-level keys or inside a nested map: both pieces read, typed and stated', async () => {
    // The elision's stand-in key is no field of any kind (it once made the class piece "fit no kind"), and a margin
    // `...` inside the pool's spec resumes at the level of the line after it (it once broke the YAML).
    const { r, said } = await texts('pieces-elided-top.md', '2025-06-02T12:00:00Z');
    expect(r.load.objects.map((o) => `${o.object.kind} ${o.object.metadata.name ?? NAME_NOT_SHOWN}`).sort()).toEqual([
      `EC2NodeClass ${NAME_NOT_SHOWN}`,
      `NodePool ${NAME_NOT_SHOWN}`,
    ]);
    expect(r.load.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^prose/)]);
    const pool = r.load.objects.find((o) => o.object.kind === 'NodePool')!.object;
    expect(pool.spec).toMatchObject({ limits: { cpu: '400' }, template: { spec: { nodeClassRef: { name: 'ledger' } } } });
    expect(said.filter((s) => s.where === 'nodeclass-not-ready not evaluated').map((s) => s.text)).toEqual([
      expect.stringContaining(`EC2NodeClass ${NAME_NOT_SHOWN} shows Ready=False`),
    ]);
  });

  it('an unnamed pool is not taken for one whose name a pod selects: not evaluated, saying the name is not shown', async () => {
    const { r } = await texts('pieces-unnamed-symptoms.md', '2025-06-02T12:00:00Z');
    expect(r.findings.filter((f) => f.ruleId === 'pending-pod-no-nodepool-fits')).toEqual([]);
    expect(r.run.notEvaluatedFor.find((n) => n.ruleId === 'pending-pod-no-nodepool-fits')?.reason).toContain('does not show metadata.name');
  });

  it('the renderer: an empty value of a name placeholder is the stand-in; an empty clause stays empty', () => {
    const t = { m: '{{kind}} {{poolName}} is frozen{{clause}}; see {{name}}.' };
    expect(renderMessage('r', t, 'm', { kind: 'NodePool', poolName: '', clause: '', name: '' })).toBe(
      `NodePool ${NAME_NOT_SHOWN} is frozen; see ${NAME_NOT_SHOWN}.`,
    );
    expect(renderMessage('r', t, 'm', { kind: 'NodePool', poolName: 'batch', clause: ' since 09:00', name: 'x' })).toBe(
      'NodePool batch is frozen since 09:00; see x.',
    );
  });
});
