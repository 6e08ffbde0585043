/**
 * The rule test kit (after ESLint's RuleTester): runs one rule over its fixture cases `fixtures/rules/<id>/<case>/`
 * and asserts what a user would see — which objects get a finding, at which field and severity (the anchor), which
 * of the rule's messages each says and with what values (`messageId`, `data`: what tests key on, so a rewording
 * does not void them), the wording of one message per rule, silence on the near-miss, and the *not evaluated* reason that the rule's
 * `meta.requires` implies when its inputs are missing. Detailed assertions (evidence, cited lines, fix) stay in the
 * rule's own test, on the same cached scan (`caseScan`).
 */
import { describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import type { Severity } from '../../src/engine/rule.js';
import { missingInputsText } from '../../src/snapshot/input-words.js';
import { findRule, type RuleId } from '../../src/rules/index.js';
import { caseDir, unexpectedSkips } from '../rules/fixture-helpers.js';
import { scanRule, type ScanOptions } from './scan.js';

/** Where a finding lands: the object a user opens, the field to change in it (JSON pointer), and how bad it is. */
export interface Anchor {
  kind: string;
  /** Omitted for cluster-scoped objects. */
  namespace?: string;
  name: string;
  pointer: string;
  severity: Severity;
  /** Which of the rule's `meta.messages` the finding says: checked when given. */
  messageId?: string;
  /** The values of its placeholders: checked when given, exactly (or partly with `expect.objectContaining`). */
  data?: Record<string, unknown>;
}

/** The finding's anchor, with its messageId and data where the expected anchor names them. */
function anchor(f: Finding, want?: Anchor): Anchor {
  const { kind, namespace, name } = f.object;
  return {
    kind,
    ...(namespace ? { namespace } : {}),
    name,
    pointer: anchorOf(f).pointer,
    severity: f.severity,
    ...(want && 'messageId' in want ? { messageId: f.messageId } : {}),
    ...(want && 'data' in want ? { data: f.data } : {}),
  };
}

type Scan = Awaited<ReturnType<typeof scanRule>>;

/** Skips that would mean the fixture was not read as intended (a README beside the case's files is expected). */
function badSkips(r: Scan): string[] {
  return unexpectedSkips(r.report.snapshot.skipped).filter((reason) => !/documentation file\(s\) not read/.test(reason));
}
const scans = new Map<string, Promise<Scan>>();

/** The scan of one fixture case, run once per test file however many tests read it. */
function caseScan(id: RuleId, kase: string, opts: ScanOptions = {}): Promise<Scan> {
  const key = `${id}\0${kase}\0${JSON.stringify(opts)}`;
  let scan = scans.get(key);
  if (!scan) scans.set(key, (scan = scanRule(id, [caseDir(id, kase)], opts)));
  return scan;
}

export interface FiresCase {
  /** Fixture directory under fixtures/rules/<id>/ (default `fires`). */
  case?: string;
  /** Every finding of the rule on this case, in report order. */
  findings: Anchor[];
  /** The exact message of one finding (by object name): the rule's wording is checked once, here. */
  message?: { name: string; text: string };
  options?: ScanOptions;
}

export interface RuleCases {
  fires: FiresCase[];
  /**
   * Cases that look like the problem but are not: the rule must evaluate and stay silent (default `near-miss`).
   * `partly` is the exact note of a rule that judged all but some objects (said as *not evaluated* for those).
   */
  nearMiss: Array<{ case?: string; options?: ScanOptions; partly?: string }>;
  /**
   * Cases without the rule's required inputs (default `missing`). `reason` only for an input `meta.requires` cannot
   * name (the CRDs of karpenter-object-rejected); otherwise the reason is derived from `meta.requires`.
   */
  missing: Array<{ case?: string; options?: ScanOptions; reason?: string }>;
}

/** Registers the fires / near-miss / missing tests of one rule. */
export function testRule(id: RuleId, cases: RuleCases): void {
  const meta = findRule(id)!.meta;
  describe(`${id} (rule test kit)`, () => {
    for (const c of cases.fires) {
      const kase = c.case ?? 'fires';
      it(`${kase}: ${c.findings.length} finding(s), at the expected objects and fields`, async () => {
        const r = await caseScan(id, kase, c.options);
        expect(badSkips(r)).toEqual([]);
        expect(r.notEvaluated).toEqual([]);
        expect(r.findings.map((f) => f.ruleId)).toEqual(c.findings.map(() => id));
        expect(r.findings.map((f, i) => anchor(f, c.findings[i]))).toEqual(c.findings);
        if (c.message) {
          const f = r.findings.find((x) => x.object.name === c.message!.name);
          expect(f?.message).toBe(c.message.text);
        }
        for (const f of r.findings) expect(f.fix.trim()).not.toBe('');
      });
    }
    for (const c of cases.nearMiss) {
      const kase = c.case ?? 'near-miss';
      it(`${kase}: evaluated, and silent`, async () => {
        const r = await caseScan(id, kase, c.options);
        expect(badSkips(r)).toEqual([]);
        expect(r.notEvaluated).toEqual(c.partly ? [{ ruleId: id, reason: c.partly }] : []);
        expect(r.findings).toEqual([]);
      });
    }
    for (const c of cases.missing) {
      const kase = c.case ?? 'missing';
      it(`${kase}: not evaluated, naming the missing input (from meta.requires)`, async () => {
        const r = await caseScan(id, kase, c.options);
        expect(r.findings).toEqual([]);
        if (c.reason) {
          expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: id, reason: c.reason })]);
          return;
        }
        const absent = meta.requires.filter((input) => !r.snapshot.has(input));
        const anyOf = (meta.requiresAnyOf ?? []).filter((input) => !r.snapshot.has(input));
        expect(absent.length + (meta.requiresAnyOf?.length ?? 0)).toBeGreaterThan(0);
        // The inputs it names, as data; the words are the input's (input-words.ts), tested there.
        const missing = absent.length ? absent : anyOf;
        expect(r.notEvaluated).toEqual([{ ruleId: id, missing, reason: missingInputsText(r.snapshot, missing, absent.length ? 'and' : 'or') }]);
      });
    }
  });
}
