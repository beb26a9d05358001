// Draws a line diff (diff.ts) into a pane, unified or side by side, with a guard for very large notes: past
// LARGE_DIFF_CHARS the pane shows a summary and a button that draws the full diff on request.
import { diffHunks, sideBySide, type DiffLine } from '../../core/diff';

export type DiffMode = 'unified' | 'side-by-side';

/** Notes longer than this (before or after) get a summary first: a diff of them can take long to draw. */
export const LARGE_DIFF_CHARS = 50_000;

export interface DiffRenderOptions {
  mode: DiffMode;
  /** Draw the diff even past the size guard (the user asked for it). */
  full: boolean;
  onShowFull: () => void;
}

function num(row: HTMLElement, n: number | undefined): void {
  row.createSpan({ cls: 'engram-diff-num', text: n === undefined ? '' : String(n) });
}

const SIGN: Record<DiffLine['op'], string> = { same: ' ', add: '+', del: '-' };

function unifiedLine(parent: HTMLElement, l: DiffLine): void {
  const row = parent.createDiv({ cls: `engram-diff-line engram-diff-${l.op}` });
  num(row, l.a);
  num(row, l.b);
  row.createSpan({ cls: 'engram-diff-sign', text: SIGN[l.op] });
  row.createSpan({ cls: 'engram-diff-text', text: l.text });
}

function sideCell(row: HTMLElement, l: DiffLine | undefined, side: 'a' | 'b'): void {
  const cell = row.createDiv({ cls: `engram-diff-cell engram-diff-${l ? l.op : 'none'}` });
  num(cell, l?.[side]);
  cell.createSpan({ cls: 'engram-diff-text', text: l?.text ?? '' });
}

/** Rows per block: blocks out of view skip style, layout and paint (CSS content-visibility), so a long diff costs what shows. */
const BLOCK_ROWS = 40;

function blocks(parent: HTMLElement): () => HTMLElement {
  let block: HTMLElement | null = null;
  let rows = 0;
  return () => {
    if (!block || rows % BLOCK_ROWS === 0) block = parent.createDiv({ cls: 'engram-diff-block' });
    rows++;
    return block;
  };
}

function skipped(parent: HTMLElement, n: number): void {
  if (n > 0) parent.createDiv({ cls: 'engram-diff-skip', text: `${n} unchanged ${n === 1 ? 'line' : 'lines'}` });
}

/** Draws the diff of `before` (empty for a new note) against `after` into `parent`. */
export function renderDiff(parent: HTMLElement, before: string, after: string, opts: DiffRenderOptions): HTMLElement {
  const el = parent.createDiv({ cls: `engram-diff engram-diff-mode-${opts.mode}` });
  if (!opts.full && Math.max(before.length, after.length) > LARGE_DIFF_CHARS) {
    const summary = el.createDiv({ cls: 'engram-diff-large' });
    const chars = (n: number) => `${n.toLocaleString('en')} characters`;
    summary.createSpan({ text: before === '' ? `A large new note: ${chars(after.length)}.` : `A large note: ${chars(before.length)} now, ${chars(after.length)} after.` });
    const show = summary.createEl('button', { text: 'Show full diff' });
    show.addEventListener('click', opts.onShowFull);
    return el;
  }
  const d = diffHunks(before, after);
  const stats = el.createDiv({ cls: 'engram-diff-stats' });
  if (d.added + d.removed === 0) {
    stats.setText('No change to the text');
    return el;
  }
  stats.createSpan({ cls: 'engram-diff-stat-add', text: `+${d.added}` });
  stats.createSpan({ cls: 'engram-diff-stat-del', text: `-${d.removed}` });
  for (const h of d.hunks) {
    skipped(el, h.skippedBefore);
    const block = blocks(el.createDiv({ cls: 'engram-diff-hunk' }));
    if (opts.mode === 'unified') {
      for (const l of h.lines) unifiedLine(block(), l);
    } else {
      for (const r of sideBySide(h.lines)) {
        const row = block().createDiv({ cls: 'engram-diff-row' });
        sideCell(row, r.left, 'a');
        sideCell(row, r.right, 'b');
      }
    }
  }
  skipped(el, d.skippedAfter);
  return el;
}
