/** Small Markdown helpers shared by the SARIF help texts and the PR-comment report. */
import { maxOf } from '../kube/lists.js';

/** A fence longer than any backtick run inside, so code holding ``` stays intact. */
export function fence(code: string, lang = ''): string {
  const longest = maxOf([2, ...[...code.matchAll(/`+/g)].map((x) => x[0].length)]);
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${code.replace(/\n+$/, '')}\n${f}`;
}

/** Inline code that survives backticks in the text. */
export function codeSpan(text: string): string {
  const longest = maxOf([0, ...[...text.matchAll(/`+/g)].map((x) => x[0].length)]);
  const d = '`'.repeat(longest + 1);
  return longest ? `${d} ${text} ${d}` : `${d}${text}${d}`;
}

/** Plain text in a Markdown (GFM) table cell or summary line: no HTML, no cell breaks, one line. */
export function inlineText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}
