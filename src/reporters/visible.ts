/**
 * Characters a reader cannot see, shown as what they are: control characters (a terminal obeys ESC and CR), bidi
 * overrides and isolates (they reorder the text around them: "Trojan Source"), zero-width characters (two names that
 * look the same are not) and line separators. Every report for people (terminal, HTML, Markdown, annotations) shows
 * text from the input only through this function, so a name shows the same everywhere. Newlines and tabs stay: our
 * own texts are laid out with them.
 */
const INVISIBLE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\u206a-\u206f\ufeff\ufff9-\ufffb]|\r(?!\n)/g;

/** `\u202e` for U+202E RIGHT-TO-LEFT OVERRIDE, and so on. A CR alone (it rewrites the line on a terminal) is shown; CRLF is a line end. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
