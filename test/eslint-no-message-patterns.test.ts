/** The lint rule that keeps Karpenter's and the clouds' wordings in the message catalog: what it flags, what it leaves. */
import { RuleTester } from 'eslint';
import { describe, it } from 'vitest';
import rule from '../scripts/eslint-no-message-patterns.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

new RuleTester({ languageOptions: { ecmaVersion: 2023, sourceType: 'module' } }).run('no-message-patterns', rule, {
  valid: [
    // Layout and field parsing: ages, label keys, kinds, column headers, list separators.
    { code: 'const AGE = /^(\\d+)([smhd])$/;' },
    { code: 'const POOL = /^karpenter\\.sh\\/nodepool$/;' },
    { code: 'const KIND = /^(NodePool|NodeClaim|EC2NodeClass)$/;' },
    { code: 'const HEADER = /\\bTYPE\\s+CAPACITY\\s+ZONE\\s+NODE\\s+READY\\b/;' },
    { code: 'const SPLIT = /,\\s*|\\s+and\\s+/;' },
    { code: 'const re = new RegExp(`^${name}-[a-z0-9]{5}$`);' },
  ],
  invalid: [
    { code: 'const A = /could not schedule pod/i;', errors: [{ messageId: 'wording' }] },
    { code: 'const B = /^(?:ignoring nodepool, not ready)$/;', errors: [{ messageId: 'wording' }] },
    { code: 'const C = /\\bInsufficientInstanceCapacity\\b/;', errors: [{ messageId: 'wording' }] },
    { code: 'const D = /SubnetIsFull|QuotaExceeded/;', errors: [{ messageId: 'wording' }] },
    { code: "const E = new RegExp('exceed limits for nodepool');", errors: [{ messageId: 'wording' }] },
    { code: 'const F = /InvalidGroup\\.NotFound/;', errors: [{ messageId: 'wording' }] },
    { code: 'const G = /terminating\\s+due to registration ttl/;', errors: [{ messageId: 'wording' }] },
  ],
});
