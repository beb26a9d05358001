// The one line diff: for the restructure pane, what a note is now against what a proposal would write, as hunks with
// context for a unified view and as paired rows for a side-by-side view; for `engram install --dry-run`, the changed
// lines of a registration file. Pure functions over strings (no DOM, no Obsidian, no Node).

export type DiffOp = 'same' | 'add' | 'del';

export interface DiffLine {
  op: DiffOp;
  text: string;
  /** 1-based line number in the text before (same, del). */
  a?: number;
  /** 1-based line number in the text after (same, add). */
  b?: number;
}

export interface Hunk {
  lines: DiffLine[];
  /** Unchanged lines left out before this hunk. */
  skippedBefore: number;
}

export interface DiffResult {
  hunks: Hunk[];
  /** Unchanged lines left out after the last hunk. */
  skippedAfter: number;
  added: number;
  removed: number;
}

/** Past this many differing lines the search stops and the rest is shown as removed then added (still exact). */
const MAX_EDITS = 1000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  // A final line break ends the last line rather than starting an empty one.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Myers' O(ND) shortest edit script over lines, after trimming the common head and tail. Returns, for the middle,
 * the ops in order; null when the edit distance passes MAX_EDITS.
 */
function middleOps(a: string[], b: string[]): DiffOp[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, offset, n, m, d);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], offset: number, n: number, m: number, dEnd: number): DiffOp[] {
  const ops: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push('same');
      x--;
      y--;
    }
    ops.push(down ? 'add' : 'del');
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push('same');
    x--;
    y--;
  }
  return ops.reverse();
}

/** Every line of both texts, in order, marked same, removed or added. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const ops: DiffOp[] = [...Array<DiffOp>(head).fill('same')];
  const middle = am.length === 0 || bm.length === 0 ? null : middleOps(am, bm);
  if (middle) ops.push(...middle);
  else ops.push(...Array<DiffOp>(am.length).fill('del'), ...Array<DiffOp>(bm.length).fill('add'));
  ops.push(...Array<DiffOp>(tail).fill('same'));
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === 'same') out.push({ op, text: a[i], a: ++i, b: ++j });
    else if (op === 'del') out.push({ op, text: a[i], a: ++i });
    else out.push({ op, text: b[j], b: ++j });
  }
  return out;
}

/** The changed lines with `context` unchanged lines around each change; long unchanged runs are left out. */
export function diffHunks(before: string, after: string, context = 3): DiffResult {
  const lines = diffLines(before, after);
  const keep = new Uint8Array(lines.length);
  let added = 0;
  let removed = 0;
  lines.forEach((l, i) => {
    if (l.op === 'same') return;
    if (l.op === 'add') added++;
    else removed++;
    for (let c = Math.max(0, i - context); c <= Math.min(lines.length - 1, i + context); c++) keep[c] = 1;
  });
  const hunks: Hunk[] = [];
  let skipped = 0;
  let current: Hunk | null = null;
  for (let i = 0; i < lines.length; i++) {
    if (!keep[i]) {
      skipped++;
      current = null;
      continue;
    }
    if (!current) {
      current = { lines: [], skippedBefore: skipped };
      hunks.push(current);
      skipped = 0;
    }
    current.lines.push(lines[i]);
  }
  return { hunks, skippedAfter: skipped, added, removed };
}

export interface SideRow {
  left?: DiffLine;
  right?: DiffLine;
}

/** A hunk as rows of two columns: unchanged lines face each other, removed lines face the added lines that replace them. */
export function sideBySide(lines: DiffLine[]): SideRow[] {
  const rows: SideRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i];
    if (l.op === 'same') {
      rows.push({ left: l, right: l });
      i++;
      continue;
    }
    const dels: DiffLine[] = [];
    const adds: DiffLine[] = [];
    while (i < lines.length && lines[i].op === 'del') dels.push(lines[i++]);
    while (i < lines.length && lines[i].op === 'add') adds.push(lines[i++]);
    for (let r = 0; r < Math.max(dels.length, adds.length); r++) rows.push({ left: dels[r], right: adds[r] });
  }
  return rows;
}
