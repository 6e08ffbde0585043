// Prints the rows of the message catalog (src/snapshot/messages/catalog.ts) as the Markdown table of
// docs/karpenter-behaviour.md §8.6: `npm run build && node scripts/message-catalog.mjs`. test/message-catalog.test.ts
// fails when a row of the catalog is missing from the doc, or the doc lists one the catalog no longer has.
import { catalogRows } from '../dist/snapshot/messages/catalog.js';

const cell = (text) => text.replace(/\|/g, '\\|').replace(/`/g, "'");
const wording = (source) => {
  const plain = source.replace(/\\([.\\/()[\]?*+])/g, '$1');
  return plain.length > 90 ? `${plain.slice(0, 87)}…` : plain;
};

console.log('| row | printed by | carries | wording (pattern) |');
console.log('|---|---|---|---|');
for (const r of catalogRows()) {
  console.log(`| \`${r.id}\` | ${r.printed.join(', ')} | ${r.carries.join(', ') || '—'} | ${cell(wording(r.wording))} |`);
}
