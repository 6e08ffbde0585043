/** "did you mean" for mistyped rule ids, settings and fields: the commonest configuration error is a typo. */

export function didYouMean(word: string, known: readonly string[]): string {
  const scored = known
    .map((k) => ({ k, d: k.toLowerCase() === word.toLowerCase() ? 0 : distance(k, word) }))
    .filter(({ k, d }) => d <= 3 || (word.length > 3 && (k.includes(word) || word.includes(k))))
    .sort((a, b) => a.d - b.d);
  return scored[0] ? ` — did you mean "${scored[0].k}"?` : '';
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
