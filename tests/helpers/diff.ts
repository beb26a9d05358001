// Which lines of `before` an edit changed: the lines outside the longest common prefix and suffix of the two texts.
// Used to assert that a frontmatter edit touched only the lines of the keys it meant to change.

export interface LineChange {
  /** 1-based first changed line in `before` and how many lines were removed / inserted there. */
  line: number;
  removed: string[];
  added: string[];
}

/** Splits keeping line endings, so that a changed line ending (CRLF → LF) counts as a change. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Every hunk (a small LCS line diff; notes are short). */
export function diffHunks(before: string, after: string): LineChange[] {
  const a = lines(before);
  const b = lines(after);
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const hunks: LineChange[] = [];
  let i = 0;
  let j = 0;
  let cur: LineChange | null = null;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      if (cur) hunks.push(cur);
      cur = null;
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      cur ??= { line: i + 1, removed: [], added: [] };
      cur.added.push(b[j++]);
    } else {
      cur ??= { line: i + 1, removed: [], added: [] };
      cur.removed.push(a[i++]);
    }
  }
  if (cur) hunks.push(cur);
  return hunks;
}
