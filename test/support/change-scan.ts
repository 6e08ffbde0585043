/**
 * The rules of a change, run in-process as `scan REPO --against STATE [--base BASE]` runs them: a fixture case holds
 * `repo/` (the pull request's head), optionally `base/` (the base branch), and the cluster: `fixtures/example-cluster`,
 * `cluster/` instead of it, or `cluster-extra/` beside it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { InputName } from '../../src/kube/kinds.js';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { runRules } from '../../src/engine/runner.js';
import { kustomizationIn, loadKustomization } from '../../src/loaders/kustomize.js';
import { loadInputs } from '../../src/loaders/load.js';
import type { LoadResult } from '../../src/loaders/types.js';
import { RULES, type RuleId } from '../../src/rules/index.js';
import { buildChanges } from '../../src/snapshot/changes.js';
import { applyRepository } from '../../src/snapshot/overlay.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';
import { caseDir } from '../rules/fixture-helpers.js';
import { FIXTURES } from './scan.js';

async function repository(path: string): Promise<LoadResult> {
  return kustomizationIn(path) ? (await loadKustomization(path))! : loadInputs([path]);
}

export async function changeScan(rules: RuleId[] | undefined, dir: string) {
  const own = join(dir, 'cluster');
  const extra = join(dir, 'cluster-extra');
  const clusterPaths = existsSync(own) ? [own] : [join(FIXTURES, 'example-cluster'), ...(existsSync(extra) ? [extra] : [])];
  const cluster = await loadInputs(clusterPaths);
  const repo = await repository(join(dir, 'repo'));
  const base = existsSync(join(dir, 'base')) ? await repository(join(dir, 'base')) : undefined;
  const overlay = applyRepository(cluster, repo, base);
  const before = new Snapshot(cluster);
  const after = new Snapshot(overlay.load, { overlaid: true });
  after.useChanges(buildChanges(before, after, overlay.applied, base !== undefined, overlay.fromRepository));
  const run = runRules(RULES, after, rules ? { only: rules } : {});
  return { before, after, run, findings: run.findings, notEvaluated: run.notEvaluated };
}

const scans = new Map<string, ReturnType<typeof changeScan>>();

/** One case's scan with only `id` enabled, run once per test file. */
export function changeCase(id: RuleId, kase: string): ReturnType<typeof changeScan> {
  const key = `${id}\0${kase}`;
  let s = scans.get(key);
  if (!s) scans.set(key, (s = changeScan([id], caseDir(id, kase))));
  return s;
}

export interface ChangeAnchor {
  kind: string;
  namespace?: string;
  name: string;
  pointer: string;
  severity: string;
}

function anchor(f: Finding): ChangeAnchor {
  const { kind, namespace, name } = f.object;
  return { kind, ...(namespace ? { namespace } : {}), name, pointer: anchorOf(f).pointer, severity: f.severity };
}

/** fires / near-miss / missing, as the rule test kit asserts them for other rules. */
export function testChangeRule(id: RuleId, cases: { fires: ChangeAnchor[]; message: { name: string; text: string }; missing: InputName[] | string }): void {
  it('fires: the findings, at the expected objects and fields', async () => {
    const r = await changeCase(id, 'fires');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map(anchor)).toEqual(cases.fires);
    expect(r.findings.find((f) => f.object.name === cases.message.name)?.message).toBe(cases.message.text);
    for (const f of r.findings) expect(f.fix.trim()).not.toBe('');
  });
  it('near-miss: evaluated, and silent', async () => {
    const r = await changeCase(id, 'near-miss');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
  it('missing: not evaluated, naming what is missing', async () => {
    const r = await changeCase(id, 'missing');
    expect(r.findings).toEqual([]);
    // The rule's own reason (a flag to pass), else the inputs the runner names as data.
    expect(r.notEvaluated).toEqual([
      expect.objectContaining(typeof cases.missing === 'string' ? { ruleId: id, reason: cases.missing } : { ruleId: id, missing: cases.missing }),
    ]);
  });
  it('an ordinary scan neither runs it nor lists it', async () => {
    const r = await changeCase(id, 'fires');
    const plain = runRules(RULES, r.before);
    expect(plain.findings.filter((f) => f.ruleId === id)).toEqual([]);
    expect(plain.notEvaluated.filter((n) => n.ruleId === id)).toEqual([]);
  });
}
