// Cuts a session into windows under an LLM's token budget, newest first, with a few turns of
// overlap so a decision is never cut off from its context. Nothing is dropped: a turn too large
// for one window is split into numbered parts, each its own window.
import type { Turn } from './types.js';

export interface WindowOptions {
  /** Token budget of one window's transcript text. Default 24,000. */
  budgetTokens?: number;
  /** Turns of the newer window repeated at the end of the older one, for context. Default 2. */
  overlapTurns?: number;
  /** Token estimate of a text. Default ceil(chars / 4). */
  estimate?: (text: string) => number;
}

export interface WindowItem {
  /** Turn.index of the turn this text comes from. */
  turn: number;
  /** The rendered turn (or part of it): `[user] …`, `[assistant] …` with tools and errors. */
  text: string;
  /** Set when a turn was too large for one window: this is part `index` (1-based) of `count`. */
  part?: { index: number; count: number };
}

export interface TranscriptWindow {
  /** 0 = the most recent window. */
  index: number;
  firstTurn: number;
  lastTurn: number;
  /** Record uuids at the window's edges (what the ledger stores once the window is extracted). */
  firstUuid: string;
  lastUuid: string;
  /** Byte offset just past the window's last record (the ledger's offset hint). */
  endOffset: number;
  tokens: number;
  /** How many trailing items repeat turns of the newer window (context, already sent). */
  overlap: number;
  /** The window holds one part of a turn too large for the budget. */
  split: boolean;
  items: WindowItem[];
}

export const DEFAULT_BUDGET_TOKENS = 24_000;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function renderTurn(t: Turn): string {
  const lines = [`[${t.role}${t.sidechain ? ' (subagent)' : ''}] ${t.text}`.trimEnd()];
  if (t.tools.length) lines.push(`(tools: ${t.tools.join(', ')})`);
  for (const e of t.errors) lines.push(`(error: ${e})`);
  return lines.join('\n');
}

/** Windows over `turns` (all of a session, or only the uncovered ones), most recent first. */
export function buildWindows(turns: Turn[], opts: WindowOptions = {}): TranscriptWindow[] {
  const budget = Math.max(64, opts.budgetTokens ?? DEFAULT_BUDGET_TOKENS);
  const overlapTurns = Math.max(0, opts.overlapTurns ?? 2);
  const est = opts.estimate ?? estimateTokens;
  const rendered = turns.map(renderTurn);
  const cost = rendered.map(est);
  const windows: TranscriptWindow[] = [];

  const push = (from: number, to: number, items: WindowItem[], tokens: number, overlap: number, split: boolean) => {
    const first = turns[from];
    const last = turns[to];
    windows.push({
      index: windows.length,
      firstTurn: first.index,
      lastTurn: last.index,
      firstUuid: first.uuid,
      lastUuid: last.lastUuid ?? last.uuid,
      endOffset: last.endOffset ?? last.offset,
      tokens,
      overlap,
      split,
      items,
    });
  };

  let end = turns.length - 1;
  while (end >= 0) {
    if (cost[end] > budget) {
      const parts = splitText(rendered[end], budget, est);
      for (let k = parts.length - 1; k >= 0; k--) {
        push(end, end, [{ turn: turns[end].index, text: parts[k], part: { index: k + 1, count: parts.length } }], est(parts[k]), 0, true);
      }
      end--;
      continue;
    }
    let start = end;
    let tokens = cost[end];
    while (start - 1 >= 0 && cost[start - 1] <= budget && tokens + cost[start - 1] <= budget) {
      start--;
      tokens += cost[start];
    }
    // Context from the newer window: the turns right after this one, while they fit.
    let overlap = 0;
    const newer = windows.length ? windows[windows.length - 1] : undefined;
    if (newer && !newer.split) {
      while (overlap < overlapTurns && end + 1 + overlap < turns.length) {
        const c = cost[end + 1 + overlap];
        if (tokens + c > budget) break;
        tokens += c;
        overlap++;
      }
    }
    const items: WindowItem[] = [];
    for (let i = start; i <= end + overlap; i++) items.push({ turn: turns[i].index, text: rendered[i] });
    push(start, end + overlap, items, tokens, overlap, false);
    end = start - 1;
  }
  return windows;
}

/** Splits a text into pieces under the budget, preferring paragraph, then line, then word breaks. */
export function splitText(text: string, budget: number, est: (t: string) => number = estimateTokens): string[] {
  const parts: string[] = [];
  let rest = text;
  // Characters per token, measured on this text, so a custom estimator is respected.
  const ratio = Math.max(1, text.length / Math.max(1, est(text)));
  const maxChars = Math.max(16, Math.floor(budget * ratio * 0.95));
  while (rest.length > 0) {
    if (rest.length <= maxChars && est(rest) <= budget) {
      parts.push(rest);
      break;
    }
    let cut = maxChars;
    const para = rest.lastIndexOf('\n\n', maxChars);
    const line = rest.lastIndexOf('\n', maxChars);
    const space = rest.lastIndexOf(' ', maxChars);
    if (para > maxChars / 2) cut = para + 2;
    else if (line > maxChars / 2) cut = line + 1;
    else if (space > maxChars / 2) cut = space + 1;
    // Never cut a surrogate pair in half.
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return parts;
}
