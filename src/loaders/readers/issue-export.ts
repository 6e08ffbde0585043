/**
 * An issue saved with `gh issue view N --json title,body,comments` (or the REST API's issue JSON): not objects but
 * texts people wrote. The body and each comment are read as tickets of their own, cited as `FILE (body)` and
 * `FILE (comment 2 by login)`, with lines counted inside each text.
 */
import { readAll, type Reader } from './reader.js';

/** The keys `gh issue view --json` and the REST API put first (both sort or order them so). */
const ISSUE_KEYS =
  /^\s*\{\s*"(?:assignees|author|body|closed|closedAt|comments|createdAt|id|isPinned|labels|milestone|number|reactionGroups|state|title|updatedAt|url|user)"\s*:/;

export const issueExport: Reader = {
  pasted: true,
  id: 'issue-export',
  needs: 'content',
  sniff: (s) => (!s.embedded && /\.json$/i.test(s.name) && ISSUE_KEYS.test(s.sample) && /"body"\s*:\s*"/.test(s.sample) ? 1 : 0),
  read: async ({ file, chunks, readText }, sink) => {
    let issue: unknown;
    try {
      issue = JSON.parse(await readAll(chunks));
    } catch (e) {
      sink.skipped.push({ source: file.displayPath, line: 1, reason: `an issue export that is not valid JSON: ${(e as Error).message}` });
      return 'skipped';
    }
    const texts = textsOf(issue);
    if (!texts.length) {
      sink.skipped.push({ source: file.displayPath, line: 1, reason: 'an issue export without a body or comments' });
      return 'skipped';
    }
    for (const t of texts) await readText({ displayPath: `${file.displayPath} (${t.label})`, name: `${t.label.replace(/\W+/g, '-')}.md`, text: t.text }, sink);
    return 'loaded';
  },
};

function textsOf(issue: unknown): Array<{ label: string; text: string }> {
  if (typeof issue !== 'object' || issue === null || Array.isArray(issue)) return [];
  const o = issue as Record<string, unknown>;
  const out: Array<{ label: string; text: string }> = [];
  if (typeof o.body === 'string' && o.body.trim()) out.push({ label: 'body', text: o.body });
  const comments = Array.isArray(o.comments) ? o.comments : [];
  comments.forEach((c, i) => {
    const comment = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    if (typeof comment.body !== 'string' || !comment.body.trim()) return;
    const who = loginOf(comment.author) ?? loginOf(comment.user);
    out.push({ label: `comment ${i + 1}${who ? ` by ${who}` : ''}`, text: comment.body });
  });
  return out;
}

function loginOf(v: unknown): string | undefined {
  const login = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).login : undefined;
  return typeof login === 'string' && /^[\w-]{1,39}$/.test(login) ? login : undefined;
}
