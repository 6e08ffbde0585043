/** Messages as data: the renderer, and a rule that reports by messageId/data through the runner. */
import { describe, expect, it } from 'vitest';
import { MessageError, placeholders, renderMessage } from '../src/engine/messages.js';
import { defineRule, type Rule } from '../src/engine/rule.js';
import { runRules } from '../src/engine/runner.js';
import { snapshotOf } from './support/snapshot-of.js';
import { KIND } from '../src/kube/kinds.js';

const MESSAGES = {
  notReady: '{{kind}} {{name}} is not ready{{since}}.',
  plain: 'Nothing to fill in.',
} as const;

describe('renderMessage', () => {
  it('fills every placeholder, a clause placeholder included', () => {
    expect(renderMessage('r', MESSAGES, 'notReady', { kind: 'Node', name: 'a', since: ' for 2h' })).toBe('Node a is not ready for 2h.');
    expect(renderMessage('r', MESSAGES, 'notReady', { kind: 'Node', name: 'a', since: '' })).toBe('Node a is not ready.');
    expect(renderMessage('r', MESSAGES, 'plain')).toBe('Nothing to fill in.');
  });

  it('fails on a missing placeholder or an undeclared id: a bug in the rule', () => {
    expect(() => renderMessage('r', MESSAGES, 'notReady', { kind: 'Node', name: 'a' })).toThrow(MessageError);
    expect(() => renderMessage('r', MESSAGES, 'notReady', { kind: 'Node', name: 'a' })).toThrow('{{since}}');
    expect(() => renderMessage('r', MESSAGES, 'nope')).toThrow('no message "nope"');
    expect(() => renderMessage('r', undefined, 'plain')).toThrow('declared: none');
    expect(() => renderMessage('r', MESSAGES, 'toString')).toThrow(MessageError);
  });

  it('lists placeholders once, in order of first use', () => {
    expect(placeholders('{{b}} {{a}} {{b}} {{ c }}')).toEqual(['b', 'a', 'c']);
  });
});

describe('a rule reporting by messageId', () => {
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: {} };
  const rule = (messageId: string, data: Record<string, string>): Rule =>
    defineRule({
      meta: {
        id: 'test-rule',
        title: 't',
        category: 'health',
        defaultSeverity: 'warning',
        requires: ['Node'],
        specOnly: 'no',
        summary: 's',
        rationale: 'r',
        fix: ['f'],
        references: [],
        messages: MESSAGES,
      },
      check: ({ snapshot, report }) => {
        for (const n of snapshot.all(KIND.Node))
          report({
            object: n,
            messageId: messageId as 'notReady',
            data: data as { kind: string; name: string; since: string },
            fix: ['f'],
            evidence: [{ object: n, path: '/spec' }],
          });
      },
    });

  it('renders the text and keeps the id and the values on the finding', () => {
    const r = runRules([rule('notReady', { kind: 'Node', name: 'n1', since: '' })], snapshotOf([node]));
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ message: 'Node n1 is not ready.', messageId: 'notReady', data: { kind: 'Node', name: 'n1', since: '' } });
  });

  it("an undeclared id is the rule's internal error, not a finding", () => {
    const r = runRules([rule('gone', {})], snapshotOf([node]));
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated[0]!.reason).toMatch(/internal error in the rule: test-rule: no message "gone"/);
  });
});

// Compile-time: defineRule types messageId and data from meta.messages (checked by `npm run typecheck`, never run).
const typed = defineRule({
  meta: {
    id: 'typed-rule',
    title: 't',
    category: 'health',
    defaultSeverity: 'warning',
    requires: ['Node'],
    specOnly: 'no',
    summary: 's',
    rationale: 'r',
    fix: ['f'],
    references: [],
    messages: MESSAGES,
  },
  check: ({ snapshot, report }) => {
    const object = snapshot.all(KIND.Node)[0]!;
    const rest = { object, fix: ['f'], evidence: [] };
    report({ ...rest, messageId: 'notReady', data: { kind: 'Node', name: 'n', since: '' } });
    report({ ...rest, messageId: 'plain' });
    // @ts-expect-error an id the rule does not declare
    report({ ...rest, messageId: 'other' });
    // @ts-expect-error a placeholder without a value
    report({ ...rest, messageId: 'notReady', data: { kind: 'Node', name: 'n' } });
    // @ts-expect-error a value for no placeholder
    report({ ...rest, messageId: 'notReady', data: { kind: 'Node', name: 'n', since: '', extra: 1 } });
  },
});
// A typed rule goes into the registry as any rule does.
const registry: readonly Rule[] = [typed];
void registry;
