/**
 * The catalog of secret shapes a support bundle must not carry, one row per shape: what it is, the pattern that
 * finds it (its `secret` group is what goes), and what of it stays. `redact-text.ts` runs every row, in this order,
 * over every free-text value written into a bundle; docs/collect-redaction.md describes the same rows.
 *
 * The patterns run on text from the cluster, which an attacker can write, so each one is linear in the text on V8's
 * backtracking engine. The discipline, which `test/collect-redact.test.ts` checks on every row:
 * - a row starts with a look-behind, so a match is tried only where a run of the row's characters begins, never again
 *   at each character inside that run;
 * - no quantified group holds an unbounded quantifier, and each unbounded run is followed by a character its class
 *   excludes, so a failed try gives the run back once, character by character, without trying other splits of it;
 * - key names are bounded (at most 100 characters each side of the credential word), so trying a key costs a constant.
 * Every try therefore reads each character a bounded number of times, and tries begin only at run starts.
 */

/** One shape of secret. */
export interface SecretShape {
  id: string;
  /** What the shape is, for the documentation. */
  what: string;
  /** What stays once the secret is replaced, for the documentation. */
  kept: string;
  /** Global, with indices (`dg`): group `secret` is replaced; whatever else the match holds is kept. */
  pattern?: RegExp;
  /** Strings one of which every match holds: a text holding none is not searched (most strings of a cluster). */
  needs?: readonly string[];
  /** For a shape no pattern can find linearly: the [start, end) ranges of its secrets. */
  find?: (text: string) => Array<[number, number]>;
  /** How much of the secret's start to keep (a type prefix such as `AKIA`, an opening quote). */
  keepStart?: (secret: string) => number;
  /** A second look at a match the pattern cannot judge alone (the mix of characters of an opaque token). */
  accept?: (secret: string) => boolean;
}

/**
 * Words that make a key a credential's name, in any spelling: `password`, `DB_PASSWORD`, `dbPassword`, `db_pass`,
 * `client_secret`, `x-api-key`, `X-Amz-Signature`, `authToken`. `pass`, `auth` and `sig` count only as whole words
 * (`bypass`, `authMode` and `signal` are not credentials); `key` only with a word that makes it one (`api-key`,
 * `AccountKey`), as selectors and taints have plain `key`s.
 */
const CREDENTIAL_WORD =
  '(?:password|passwd|passphrase|pwd|secret|token|credentials?|creds|bearer|cookie|signature|(?<![a-z])(?:pass|auth|authorization|sig|sas)(?![a-z])|(?:api|access|secret|private|account|storage|client|master|signing|encryption|license|shared|session|aws|sas)[-_.]?key)';
/**
 * A key that ends with a credential word (up to 100 key characters before it), or with the word and a suffix that
 * still names its value (`aws_access_key_id`, `token_value`). A key going on past the word names something else: a
 * reference (`secretName`, `tokenFile`, `secretKeyRef`), a setting (`httpTokens`, `tokenTTL`), an error
 * (`NoCredentialProviders:`).
 */
const CREDENTIAL_KEY = `[\\w.-]{0,100}?${CREDENTIAL_WORD}(?:[-_.]?(?:key|id|value|data|string|b64|base64))?`;
/** A whole key that names a credential (an annotation's or field's name, a flag on its own in an args list). */
const CREDENTIAL_NAME = new RegExp(`^-{0,2}${CREDENTIAL_KEY}$`, 'i');

/** Whether a field, annotation or flag name names a credential: `password`, `example.com/api-token`, `--db-pass`. */
export function isCredentialName(key: string): boolean {
  let yes = credentialNames.get(key);
  if (yes === undefined) {
    yes = CREDENTIAL_NAME.test(key.slice(key.lastIndexOf('/') + 1));
    // Field names repeat across a cluster's objects; annotation names are many but bounded by what the cluster holds.
    if (credentialNames.size < 100_000) credentialNames.set(key, yes);
  }
  return yes;
}
const credentialNames = new Map<string, boolean>();

/** Quotes around a key or value, bare or escaped inside a JSON string (`\"password\":\"x\"`). */
const QUOTE = `(?:\\\\?["'])`;
/** A value: quoted (spaces allowed, up to the quote or an escape), or bare (up to a space or separator). */
const VALUE = `(?:${QUOTE}[^"'\\\\\\n]+|[^\\s"'\\\\,;&)}\\]]+)`;
/**
 * Booleans are switches, not credentials (`--token-auth=true`); an authorization scheme is kept for its own row
 * (`Authorization: Bearer x` keeps `Bearer`).
 */
const NOT_A_SWITCH = `(?!${QUOTE}?(?:(?:true|false)(?![\\w-])|(?:bearer|basic|token|digest)[ \\t]))`;

const keepQuote = (secret: string) => /^\\?["']/.exec(secret)?.[0].length ?? 0;

/** Base64 runs long enough to be keys (AWS secret keys are 40, Azure storage keys 88): mixed like random bytes. */
function looksRandom(run: string): boolean {
  const upper = /[A-Z]/.test(run);
  const lower = /[a-z]/.test(run);
  const digit = /[0-9]/.test(run);
  // Names, paths and digests are lower-case (hex digests of images and commits are identifiers, not secrets).
  if (!upper) return false;
  return run.length >= 60 ? lower || digit : lower && digit;
}

/** What replaces a secret. A value already redacted is not a secret to find again (the rows' `accept` say so). */
export const REDACTED = '<redacted>';

const PEM_BEGIN = '-----BEGIN ';
const PEM_DASHES = '-----';
const PEM_LABEL_MAX = 80;

/**
 * The bodies of PEM blocks, in one pass: a body runs from the end of its BEGIN line to its END line — or, for a block
 * cut short (a truncated log line, a pasted fragment), to the first character no PEM body holds, so a cut block does
 * not swallow the rest of a log. Base64, whitespace and JSON's `\n` escapes are body characters.
 */
function pemBodies(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = text.indexOf(PEM_BEGIN);
  while (at >= 0) {
    // A BEGIN line is short (`-----BEGIN ENCRYPTED PRIVATE KEY-----`): its label is looked for nearby only.
    const labelEnd = text.slice(at + PEM_BEGIN.length, at + PEM_BEGIN.length + PEM_LABEL_MAX).indexOf(PEM_DASHES);
    if (labelEnd < 0) {
      at = text.indexOf(PEM_BEGIN, at + PEM_BEGIN.length);
      continue;
    }
    const start = at + PEM_BEGIN.length + labelEnd + PEM_DASHES.length;
    let end = start;
    while (end < text.length && (PEM_BODY.test(text[end]!) || (text[end] === '\\' && /[nr]/.test(text[end + 1] ?? '')))) end += text[end] === '\\' ? 2 : 1;
    if (end > start) out.push([start, end]);
    at = text.indexOf(PEM_BEGIN, end);
  }
  return out;
}
const PEM_BODY = /[A-Za-z0-9+/=\s]/;

export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    id: 'private-key',
    what: 'PEM blocks: private keys, certificates, anything between `-----BEGIN …-----` and `-----END …-----`',
    kept: 'the BEGIN and END lines, which say what the block was',
    find: pemBodies,
  },
  {
    id: 'url-credentials',
    needs: ['://'],
    what: 'the password of a URL with credentials, `scheme://user:password@host`',
    kept: 'scheme, user name, host, path',
    // The password runs to the last `@` before the host: passwords hold `@` too (`p@ss`). The run stops at a slash or
    // space, so giving it back to that `@` happens once per URL, not per character.
    pattern: /(?<![\w+.-])[A-Za-z][\w+.-]{0,30}:\/\/[^\s/@:"'<>]{0,200}:(?<secret>[^\s/"'<>]+)@/dg,
  },
  {
    id: 'url-token-user',
    needs: ['://'],
    what: 'a token standing as the user of a URL, `https://<token>@host` (how CI systems and Git credential helpers write it)',
    kept: 'scheme, host, path; a user name that reads as a name (`git@`, `deploy@`)',
    pattern: /(?<![\w+.-])[A-Za-z][\w+.-]{0,30}:\/\/(?<secret>[^\s/@:"'<>]{16,200})@/dg,
    // A name is letters with dashes or dots; a token mixes letters and digits (40 hex digits, base64).
    accept: (s) => /[0-9]/.test(s) && /[A-Za-z]/.test(s) && !s.startsWith(REDACTED),
  },
  {
    id: 'url-query-key',
    needs: ['key=', 'code=', 'KEY=', 'Key='],
    what: 'keys and codes in a URL query, `?key=x`, `&code=x` (API keys, OAuth authorization codes), whose parameter name alone is not a credential word',
    kept: 'the URL and the parameter name',
    pattern: /(?<=[?&])(?:key|apikey|code)=(?<secret>[^&#\s"'<>]+)/dgi,
  },
  {
    id: 'slack-webhook',
    needs: ['hooks.slack.com/'],
    what: 'Slack incoming webhooks and workflow triggers, `https://hooks.slack.com/services/T…/B…/…`',
    kept: 'the host and `/services/`',
    pattern: /(?<![\w.-])hooks\.slack\.com\/(?:services|workflows|triggers)\/(?<secret>[\w/-]+)/dg,
  },
  {
    id: 'discord-webhook',
    needs: ['discord'],
    what: 'Discord webhooks, `https://discord.com/api/webhooks/<id>/<token>`',
    kept: 'the host and `/api/webhooks/`',
    pattern: /(?<![\w.-])discord(?:app)?\.com\/api\/webhooks\/(?<secret>[\w/-]+)/dg,
  },
  {
    id: 'webhook-path',
    needs: ['ook/', 'ookb2/'],
    what: 'any other webhook URL whose path carries its token: `/hooks/…`, `/webhooks/…`, `/webhookb2/…` (Teams)',
    kept: 'the host and the path up to the hook segment',
    pattern: /(?<=[\w.-])\/(?:webhooks?|hooks|webhookb2|IncomingWebhook)\/(?<secret>[\w/@.+=-]{16,})/dg,
  },
  {
    id: 'aws-access-key-id',
    needs: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    what: 'AWS access key ids: `AKIA…` (long-term), `ASIA…` (temporary), `ABIA…`, `ACCA…`',
    kept: 'the four-letter prefix, which says whether the key was long-term or temporary',
    pattern: /(?<![A-Za-z0-9])(?<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{12,40})(?![A-Za-z0-9])/dg,
    keepStart: () => 4,
  },
  {
    id: 'gcp-api-key',
    needs: ['AIza', 'ya29.'],
    what: 'Google Cloud API keys, `AIza…`, and OAuth access tokens, `ya29.…`',
    kept: 'nothing',
    pattern: /(?<![\w-])(?<secret>AIza[\w-]{30,}|ya29\.[\w.-]{20,})/dg,
  },
  {
    id: 'vendor-token',
    needs: ['gh', 'github_pat_', 'glpat-', 'xox', 'k_live_', 'k_test_', 'npm_'],
    what: 'tokens whose prefix names their vendor: GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), Slack (`xoxb-`, `xoxp-`, …), Stripe (`sk_live_`, `rk_live_`), npm (`npm_`)',
    kept: 'the prefix, which names the vendor',
    pattern: /(?<![\w-])(?<secret>(?:gh[pousr]_|github_pat_|glpat-|xox[abposre]-|[sr]k_(?:live|test)_|npm_)[\w-]{10,})/dg,
    keepStart: (s) => /^(?:github_pat_|[sr]k_(?:live|test)_|[a-z]+[_-])/.exec(s)?.[0].length ?? 0,
  },
  {
    id: 'jwt',
    needs: ['eyJ'],
    what: 'JSON Web Tokens of any length: three base64url segments, the first a JSON header (`eyJ…`)',
    kept: 'nothing',
    pattern: /(?<![\w-])(?<secret>eyJ[\w-]{4,}\.[\w-]+\.[\w-]*)/dg,
  },
  {
    id: 'bearer-basic',
    needs: ['earer', 'EARER', 'asic', 'ASIC', 'oken', 'OKEN', 'igest', 'IGEST'],
    what: 'HTTP authorization schemes: `Bearer <token>`, `Basic <base64>`, `Token <token>`, `Digest <credentials>`',
    kept: 'the scheme word',
    pattern: /(?<![\w-])(?:[Bb]earer|BEARER|[Bb]asic|BASIC|[Tt]oken|TOKEN|[Dd]igest|DIGEST)[ \t]+(?<secret>[\w~+/.=-]{8,})/dg,
    // "basic authentication", "token expired" are prose; a credential has a digit, a capital or a symbol.
    accept: (s) => !/^[a-z]+$/.test(s),
  },
  {
    id: 'credential-setting',
    needs: ['=', ':'],
    what: 'settings, fields and `--flags=` whose name is a credential, in every spelling: `password=x`, `PASSWORD=x`, `--db-password=x`, `"password": "x"`, `password: x`, `db_pass=x`, `client_secret: x`, `x-api-key: x`, `AccountKey=x;`, `?token=x&`, `\\"token\\":\\"x\\"` inside a JSON string',
    kept: 'the name and separator (and the quotes)',
    pattern: new RegExp(`(?<![\\w.-])${CREDENTIAL_KEY}${QUOTE}?[ \\t]*[=:][ \\t]*${NOT_A_SWITCH}(?<secret>${VALUE})`, 'dgi'),
    keepStart: keepQuote,
  },
  {
    id: 'credential-flag',
    needs: ['-', '_'],
    what: 'command-line flags and identifiers whose name is a credential, with the value as the next word: `--password x`, `--token "x"`, `--aws-key-id x`, `aws configure set aws_secret_access_key x`',
    kept: 'the flag or identifier',
    // A key without dashes must look like an identifier (`aws_secret_access_key x`, `client-secret x`): a plain word
    // followed by another is prose ("token expired").
    pattern: new RegExp(`(?<![\\w.-])(?:--?|(?=[a-z0-9.]{0,100}[_-]))${CREDENTIAL_KEY}[ \\t]+(?![-=:])${NOT_A_SWITCH}(?<secret>${VALUE})`, 'dgi'),
    keepStart: keepQuote,
  },
  {
    id: 'credential-prose',
    needs: [' is ', ' was ', ' to '],
    what: 'a credential stated in prose: `the password is x`, `token was x`, `secret set to x`, `api key changed to x`',
    kept: 'the sentence around it',
    pattern: new RegExp(
      `(?<![\\w-])(?:password|passwd|passphrase|token|secret|api[ \\t-]?key)[ \\t]+(?:(?:is|was)(?:[ \\t]+(?:now|(?:set|changed|reset)[ \\t]+to))?|(?:set|changed|reset)[ \\t]+to)[ \\t]+(?<secret>${VALUE})`,
      'dgi',
    ),
    keepStart: keepQuote,
    // "the password is required", "the token was kube-system/karpenter": words and names are prose, not credentials.
    accept: (s) => !/^\\?["']?[a-z][a-z./-]*[.!?]?$/.test(s) && !s.startsWith(REDACTED),
  },
  {
    id: 'short-password-flag',
    needs: ['-p'],
    what: '`-p <password>` and `-p<password>` (mysql, mariadb, sshpass); not a path (`mkdir -p /x`), a port (`-p 8080:80`) or a find/perl option (`-print`, `-pe`)',
    kept: 'the flag',
    pattern:
      /(?<![\w.-])-p(?:[ \t]+(?![-/~.$]|\d[\d:]*(?![^\s"']))|(?!(?:rint0?|rintf|rune|erm|ath|e|i|ie|l|n)(?![^\s"'])))(?<secret>"[^"\n]*|'[^'\n]*|[^\s"'=-][^\s"']*)/dg,
    keepStart: keepQuote,
  },
  {
    id: 'opaque-key',
    what: 'bare base64 runs that look random: AWS secret access keys (40 characters), Azure storage keys (88), other keys and tokens of 32 characters or more with capitals, small letters and digits',
    kept: 'nothing; lower-case runs (names, paths, hex digests of images and commits) are not secrets and stay',
    pattern: /(?<![A-Za-z0-9+/])(?<secret>[A-Za-z0-9+/]{32,}={0,2})(?![A-Za-z0-9+/=])/dg,
    accept: looksRandom,
  },
];
