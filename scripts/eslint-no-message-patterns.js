/**
 * ESLint rule: no pattern of Karpenter's or a cloud's message wording outside the message catalog
 * (src/snapshot/messages/, src/kube/messages/). Rules and readers ask the catalog for signals; a wording matched in a
 * rule is recognised where it was first met and nowhere else (docs/karpenter-behaviour.md §8.6, CONTRIBUTING.md).
 *
 * What counts as a message pattern, so that the rule does not fire on layout or field parsing: a regular expression
 * (literal, or `new RegExp` of a string or template) whose literal text holds
 * - a cloud error code (`InsufficientInstanceCapacity`, `SubnetIsFull`, `QuotaExceeded`, `InvalidGroup.NotFound`), or
 * - a phrase: two words joined by a space (literal or `\s`) where one is a word of the mechanisms Karpenter reports on
 *   (launch, schedule, disrupt, nodeclaim, capacity, quota, taint, evict …). Label keys, field names, kinds and
 *   column headers have no such phrase.
 */

const CLOUD_CODE =
  /\b(?:[A-Z][a-z]+){1,5}(?:Exceeded|NotFound|Failed|Failure|Unauthorized|IsFull|NotAllowed|NotAvailable|Unavailable|TooLow|Mismatch|Throttled)\b|\b(?:Insufficient|Unauthorized|Overconstrained)[A-Z]\w+|\bInvalid[A-Z]\w*\.[A-Z]\w+/;

const MECHANISM = [
  'schedul',
  'launch',
  'nodeclaim',
  'nodepool',
  'provisioner',
  'machine',
  'instance',
  'fleet',
  'capacity',
  'disrupt',
  'consolidat',
  'evict',
  'drain',
  'registr',
  'initializ',
  'interrupt',
  'webhook',
  'quota',
  'limits',
  'budget',
  'taint',
  'tolerate',
  'offering',
  'subnet',
  'throttl',
  'authoriz',
  'expire',
  'drift',
  'terminat',
  'allocat',
  'pdb',
  'poddisruptionbudget',
];

/** Literal text of a pattern: escapes of spaces and punctuation read as the characters, classes as a space. */
function literalText(source) {
  return source
    .replace(/\\[sbBdDwW][*+?]?/g, ' ')
    .replace(/\\(.)/g, '$1')
    .replace(/\[[^\]]*\]/g, ' ');
}

function messageWording(source) {
  const text = literalText(source);
  if (CLOUD_CODE.test(text)) return CLOUD_CODE.exec(text)[0];
  for (const m of text.matchAll(/([A-Za-z]+) +([A-Za-z]+)/g)) {
    // Column headers (`TYPE CAPACITY ZONE`) are kubectl's layout, not a message.
    if (m[1] === m[1].toUpperCase() && m[2] === m[2].toUpperCase()) continue;
    const words = [m[1].toLowerCase(), m[2].toLowerCase()];
    if (words.some((w) => MECHANISM.some((stem) => w.startsWith(stem)))) return m[0];
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: "keep Karpenter's and the clouds' message wordings in the message catalog" },
    schema: [],
    messages: {
      wording:
        'Message wording "{{wording}}" matched outside the catalog: add a row to src/snapshot/messages/ (or src/kube/messages/ for readers) and ask it for the signal.',
    },
  },
  create(context) {
    const check = (node, source) => {
      const wording = messageWording(source);
      if (wording) context.report({ node, messageId: 'wording', data: { wording } });
    };
    return {
      Literal(node) {
        if ('regex' in node && node.regex) check(node, node.regex.pattern);
      },
      NewExpression(node) {
        if (node.callee.type !== 'Identifier' || node.callee.name !== 'RegExp') return;
        const arg = node.arguments[0];
        if (!arg) return;
        if (arg.type === 'Literal' && typeof arg.value === 'string') check(node, arg.value);
        if (arg.type === 'TemplateLiteral') check(node, arg.quasis.map((q) => q.value.cooked ?? '').join(' '));
      },
    };
  },
};
