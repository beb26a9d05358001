// "Did you mean": the known word closest to a mistyped one (a command, an option, a configuration key), or none when
// nothing is close enough to be a typo.

/** Edit distance with transpositions (optimal string alignment): `hoosk` is one edit from `hooks`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate a typo most likely meant: the nearest by edit distance (case ignored) within a third of the word's
 * length (at least 1, at most 3), or the one candidate that ends with the word after a dot (`prompt_chars` →
 * `recall.prompt_chars`). Undefined when none is that close.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.min(3, Math.max(1, Math.floor(w.length / 3)));
  if (best !== undefined && best !== word && bestDistance <= limit) return best;
  const suffix = candidates.filter((c) => c.toLowerCase().endsWith(`.${w}`));
  return suffix.length === 1 ? suffix[0] : undefined;
}

/** ` (did you mean "x"?)`, or empty. */
export function didYouMeanText(word: string, candidates: readonly string[], quote = (s: string) => `"${s}"`): string {
  const m = didYouMean(word, candidates);
  return m ? `; did you mean ${quote(m)}?` : '';
}
