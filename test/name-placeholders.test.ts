/**
 * A placeholder that holds an object's name is rendered by one convention (engine/messages.ts): an empty value is an
 * object the input does not name and prints as "(name not shown)". A placeholder named after a kind (`{{pool}}`,
 * `{{claim}}`) that the convention did not cover printed "NodePool : …" for a pool pasted without its name. This
 * fails when a template uses a name placeholder the convention does not know.
 */
import { describe, expect, it } from 'vitest';
import { isNamePlaceholder, placeholders, renderMessage } from '../src/engine/messages.js';
import { NAME_NOT_SHOWN } from '../src/kube/fields.js';
import { KIND } from '../src/kube/kinds.js';
import { RULES } from '../src/rules/index.js';

/** The words a placeholder holding a name is spelt with: each kind in lowerCamelCase, and the short forms rules use. */
const KIND_WORDS = new Set([...Object.keys(KIND).map((k) => k[0]!.toLowerCase() + k.slice(1)), 'pool', 'claim', 'pv', 'pvc', 'nodeClass', 'object', 'target']);
/** Kind words that hold a phrase ("the Deployment web/api"), rendered as given: each says why it is not a name. */
const NOT_NAMES: Record<string, string> = {
  object: 'pending-pod-no-nodepool-fits fills it with displayName(), which already says the name is not shown',
  target: 'a phrase naming the kind and object ("NodeClaim x"), never empty',
  namespace: "a namespace, not an object's name: an unknown one is another stand-in (scheduling-failures NAMESPACE_NOT_SHOWN)",
};

describe('name placeholders', () => {
  const used = RULES.flatMap((rule) =>
    Object.entries(rule.meta.messages ?? {}).flatMap(([id, template]) => placeholders(String(template)).map((p) => ({ p, at: `${rule.meta.id}.${id}` }))),
  );

  it('every placeholder spelt as a kind (or ending in Name) goes through the name convention', () => {
    const bypass = used.filter(({ p }) => (KIND_WORDS.has(p) || /Name$/.test(p)) && !isNamePlaceholder(p) && !(p in NOT_NAMES));
    expect(bypass.map(({ p, at }) => `${at}: {{${p}}}`)).toEqual([]);
  });

  it("the change rules' {{pool}} and the interruption rule's {{targetName}} print an unnamed object as not shown", () => {
    for (const [ruleId, messageId, placeholder] of [
      ['change-limit-below-usage', 'belowUsage', 'pool'],
      ['change-disruption-settings', 'setting', 'pool'],
      ['interruption-drained-stateful-node', 'statefulNodeDrained', 'targetName'],
      ['unregistered-taint-problem', 'taintLingers', 'claim'],
    ] as const) {
      const rule = RULES.find((r) => r.meta.id === ruleId)!;
      const template = String(rule.meta.messages![messageId]);
      const data = Object.fromEntries(placeholders(template).map((p) => [p, p === placeholder ? '' : `<${p}>`]));
      expect(renderMessage(ruleId, rule.meta.messages, messageId, data)).toContain(NAME_NOT_SHOWN);
    }
  });
});
