/**
 * Small Markdown helpers shared by the SARIF help texts and the PR-comment report. Names and messages come from the
 * input (a customer's dump, a pull request's manifests): in a comment they must stay text, never become an image, a
 * link, HTML, a table row or a heading. Every input-derived string goes through one of these helpers, and through
 * `visible` so that control, bidi and zero-width characters show as what they are.
 */
import { maxOf } from '../kube/lists.js';
import { visible } from './visible.js';

/** A fence longer than any backtick run inside, so code holding ``` stays intact. */
export function fence(code: string, lang = ''): string {
  const longest = maxOf([2, ...[...code.matchAll(/`+/g)].map((x) => x[0].length)]);
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${visible(code).replace(/\n+$/, '')}\n${f}`;
}

/** Inline code that survives backticks in the text; one line, as a code span cannot hold a line break. */
export function codeSpan(text: string): string {
  const flat = oneLine(visible(text));
  const longest = maxOf([0, ...[...flat.matchAll(/`+/g)].map((x) => x[0].length)]);
  const d = '`'.repeat(longest + 1);
  return longest ? `${d} ${flat} ${d}` : `${d}${flat}${d}`;
}

/** A code span in a GFM table cell: a pipe, even inside code, would end the cell unless escaped. */
export function cellCode(text: string): string {
  return codeSpan(text).replace(/\|/g, '\\|');
}

/**
 * Plain text in Markdown (a table cell, a list item, a paragraph): backslash escapes for what would start a link or
 * image (`[`), emphasis, code or a table cell, entities for HTML, broken-up URL autolinks (`https\://`, `www\.`), and
 * one line, with nothing at its start that opens a heading, list, quote or rule.
 */
export function inlineText(text: string): string {
  return oneLine(visible(text))
    .replace(/[\\`*_~[\]|]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/:(?=\/\/)/g, '\\:')
    .replace(/\b(www)\./gi, '$1\\.')
    .replace(/@/g, '\\@')
    .replace(/^(\s*)([#+=-]|\d+(?=[.)]))/, (_, space: string, mark: string) => `${space}${/\d/.test(mark) ? `${mark}\\` : `\\${mark}`}`);
}

/** Text inside HTML in a comment (`<summary>`, where Markdown is not rendered): entities only, on one line. */
export function htmlText(text: string): string {
  return oneLine(visible(text)).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function oneLine(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ');
}
