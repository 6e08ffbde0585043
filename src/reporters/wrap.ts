/**
 * Word wrapping for table cells. cli-table3's own wrapping re-measures the whole cell for every word and takes
 * seconds on a finding with evidence; wrapping plain text here first is linear.
 */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) out.push(...wrapLine(line, Math.max(10, width)));
  return out;
}

function wrapLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  // Continuation lines line up under the text of a list item ("1. ", "• ", "- ").
  const indent = ' '.repeat(/^\s*(?:\d+\.\s+|•\s+|-\s+)?/.exec(line)![0].length);
  const words = line.split(/(?<=\s)(?=\S)/);
  const out: string[] = [];
  let current = '';
  for (let word of words) {
    if ((current + word).trimEnd().length <= width) {
      current += word;
      continue;
    }
    if (current.trim()) out.push(current.trimEnd());
    current = out.length ? indent : '';
    // A word longer than the line (an image digest, a long path) is cut where it must be.
    while ((current + word).trimEnd().length > width) {
      const room = width - current.length;
      out.push(current + word.slice(0, room));
      word = word.slice(room);
      current = indent;
    }
    current += word;
  }
  if (current.trim()) out.push(current.trimEnd());
  return out;
}
