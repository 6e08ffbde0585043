/**
 * Plain ASCII for pipes, files, tickets and `--ascii`: the typographic glyphs of our texts and of rule metadata and
 * messages spelled in ASCII. Other non-ASCII characters are data (names, log text) and pass through.
 */
const ASCII: Array<[RegExp, string]> = [
  [/[—–]/g, '-'],
  [/…/g, '...'],
  [/[•·]/g, '-'],
  [/→/g, '->'],
  [/←/g, '<-'],
  [/[‘’]/g, "'"],
  [/[“”]/g, '"'],
  [/≥/g, '>='],
  [/≤/g, '<='],
  [/×/g, 'x'],
  [/≠/g, '!='],
  [/−/g, '-'],
  [/§\s?/g, 'section '],
  [/[\u2500-\u257f]/g, '-'],
];

export function toAscii(s: string): string {
  let out = s;
  for (const [re, to] of ASCII) out = out.replace(re, to);
  return out;
}
