/**
 * Messages as data (CONTRIBUTING.md "Messages as data"): every rule declares its messages, every template parses, and
 * every declared message is rendered by at least one fixture case — a message no input reaches is dead wording, or a
 * case the fixtures lack. The few not reached yet are listed below, each with why; the list may only shrink.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeholders, renderMessage } from '../src/engine/messages.js';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, scan, TEST_CRDS } from './support/scan.js';

/** Declared messages no fixture case renders yet, by `ruleId/messageId`, with the reason. */
const NOT_RENDERED_BY_FIXTURES: Record<string, string> = {
  'pv-zone-unreachable/podVolumeConflict':
    'rendered by inputs built in test/rules/pv-zone-unreachable.test.ts (scheduler conflict events), not by a fixture case',
  'unregistered-taint-problem/taintLingers': 'rendered by inputs built in test/rules/unregistered-taint-problem.test.ts, not by a fixture case',
  'unregistered-taint-problem/orphanNode': 'rendered by inputs built in test/rules/unregistered-taint-problem.test.ts, not by a fixture case',
  'node-repair-blocked/poollessRepairBlocked':
    'needs a NodeRepairBlocked event "… in the cluster" about a Node held whole whose NodeClaim has no NodePool: no fixture yet (statedRepairBlocked covers the records-only form)',
  'no-instance-type-fits/poolFiltersEveryType': 'NoCompatibleInstanceTypes events about a NodePool: no fixture yet (the Pod form, podFitsNoType, is covered)',
  'change-limit-below-usage/belowUsage':
    'fires only against a baseline (--against), which a fixture scan does not pass: rendered by the change tests (test/change*.test.ts)',
  'change-strands-workloads/strands':
    'fires only against a baseline (--against), which a fixture scan does not pass: rendered by the change tests (test/change*.test.ts)',
  'change-drifts-nodes/drifts':
    'fires only against a baseline (--against), which a fixture scan does not pass: rendered by the change tests (test/change*.test.ts)',
  'change-drifts-nodes/stalls':
    'fires only against a baseline (--against), which a fixture scan does not pass: rendered by the change tests (test/change*.test.ts)',
  'change-removes-referenced-object/deleted':
    'fires only against a baseline (--against), which a fixture scan does not pass: rendered by the change tests (test/change*.test.ts)',
  'change-disruption-settings/setting':
    'fires only against a baseline (--against), which a fixture scan does not pass: rendered by the change tests (test/change*.test.ts)',
  'deprecated-karpenter-api/apiServedByWebhook':
    'needs v1beta1 objects beside a stated v1.0.x controller: rendered in test/rules/deprecated-karpenter-api.test.ts (a ticket scanned with --karpenter-version), no fixture case states v1.0.x yet',
  'pvc-references-missing-object/statedClassMissing':
    "a provisioner's ProvisioningFailed 'storageclass … not found' event about a claim: no fixture pastes one yet (statedClaimMissing, the scheduler's form, is covered)",
};

const ids = RULES.flatMap((r) => Object.keys(r.meta.messages ?? {}).map((id) => `${r.meta.id}/${id}`));

describe('every rule declares its messages', () => {
  it.each(RULES.map((r) => [r.meta.id, r] as const))('%s has meta.messages, each a template whose placeholders render', (_, rule) => {
    const messages = rule.meta.messages ?? {};
    expect(Object.keys(messages).length).toBeGreaterThan(0);
    for (const [id, template] of Object.entries(messages)) {
      expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(template.trim()).not.toBe('');
      // No stray braces: a placeholder is {{name}} and nothing else looks like one.
      expect(template.replace(/\{\{\s*[A-Za-z_]\w*\s*\}\}/g, '')).not.toMatch(/\{\{|\}\}/);
      const data = Object.fromEntries(placeholders(template).map((p) => [p, `<${p}>`]));
      expect(renderMessage(rule.meta.id, messages, id, data)).not.toMatch(/\{\{/);
    }
  });
});

const isDir = (p: string) => statSync(p).isDirectory();
const children = (dir: string) => readdirSync(dir).map((n) => join(dir, n));
const filesUnder = (p: string): string[] => (isDir(p) ? children(p).flatMap(filesUnder) : [p]);

/**
 * What the fixtures hold that may fire: each case of each rule that should (near-miss and missing cases fire none),
 * each pasted ticket file, each repository and timeline case, every other fixture directory whole.
 */
function targets(): Array<{ rule?: string; path: string }> {
  const out: Array<{ rule?: string; path: string }> = [];
  for (const top of children(FIXTURES).filter(isDir)) {
    const name = top.slice(FIXTURES.length).replace(/\/$/, '');
    if (name === 'rules') {
      for (const rule of children(top).filter(isDir))
        for (const kase of children(rule).filter((k) => isDir(k) && !/[/\\](near-miss|missing)[^/\\]*$/.test(k)))
          out.push({ rule: rule.slice(top.length + 1), path: kase });
    } else if (name === 'tickets')
      out.push(
        ...filesUnder(top)
          .filter((f) => !f.endsWith('README.md'))
          .map((path) => ({ path })),
      );
    else if (name === 'repos' || name === 'timeline')
      out.push(
        ...children(top)
          .filter(isDir)
          .map((path) => ({ path })),
      );
    else out.push({ path: top });
  }
  return out;
}

describe('every declared message is rendered by a fixture', () => {
  it('each rule/messageId appears on a finding of some fixture case (or is listed, with why, as not yet)', { timeout: 600_000 }, async () => {
    const seen = new Set<string>();
    // A message the rule cannot render (a placeholder left without its value) is an internal error that drops the
    // finding: on real fixtures that is a bug, never a verdict.
    const internalErrors: string[] = [];
    for (const { rule, path } of targets()) {
      const r = await scan([path], rule === 'karpenter-object-rejected' ? { crds: TEST_CRDS } : {});
      for (const n of r.notEvaluated) if (n.reason.startsWith('internal error')) internalErrors.push(`${path}: ${n.ruleId}: ${n.reason}`);
      for (const f of r.findings) {
        // A finding's values fill every placeholder of its message (the runner would have failed the rule otherwise).
        expect(f.messageId, `${f.ruleId} reports without a messageId`).toBeDefined();
        seen.add(`${f.ruleId}/${f.messageId}`);
      }
    }
    expect(internalErrors).toEqual([]);
    const unreached = ids.filter((id) => !seen.has(id));
    expect(unreached.filter((id) => !(id in NOT_RENDERED_BY_FIXTURES))).toEqual([]);
    // The list only shrinks: an entry a fixture now reaches is removed.
    expect(Object.keys(NOT_RENDERED_BY_FIXTURES).filter((id) => seen.has(id))).toEqual([]);
  });
});
