import { describe, expect, it } from 'vitest';
import { buildWindows, splitText, estimateTokens } from '../../../src/core/transcript/windows.js';
import { coverageOf, uncoveredTurns, resumeOffsetHint, type CoveredRange } from '../../../src/core/transcript/incremental.js';
import { readClaudeCode } from '../../../src/core/transcript/claude-code.js';
import { chunksOf } from '../../../src/core/transcript/line-splitter.js';
import type { Session, Turn } from '../../../src/core/transcript/types.js';
import { fixtureBytes, rng } from './helpers.js';

function turn(i: number, text: string, extra: Partial<Turn> = {}): Turn {
  return { index: i, role: i % 2 ? 'assistant' : 'user', text, uuid: `u${i}`, lastUuid: `u${i}`, offset: i * 100, endOffset: i * 100 + 99, tools: [], errors: [], sidechain: false, ...extra };
}

function session(turns: Turn[], sessionId = 's1'): Session {
  return { meta: { sessionId, agent: 'claude-code' }, turns };
}

describe('buildWindows', () => {
  const r = rng(7);
  const turns = Array.from({ length: 60 }, (_, i) => turn(i, 'word '.repeat(20 + Math.floor(r() * 200))));

  it('stays under the budget, newest first, with overlap, and covers every turn', () => {
    const ws = buildWindows(turns, { budgetTokens: 1000, overlapTurns: 2 });
    expect(ws.length).toBeGreaterThan(3);
    expect(ws[0]!.lastTurn).toBe(59);
    for (const w of ws) expect(w.tokens).toBeLessThanOrEqual(1000);
    for (let k = 1; k < ws.length; k++) expect(ws[k]!.lastTurn).toBeLessThan(ws[k - 1]!.lastTurn);
    // Overlap: an older window repeats the first turns of the newer one.
    expect(ws.slice(1).some((w) => w.overlap > 0)).toBe(true);
    for (let k = 1; k < ws.length; k++) {
      const w = ws[k]!;
      const newerFirst = ws[k - 1]!.firstTurn;
      expect(w.items.filter((i) => i.turn >= newerFirst).length).toBe(w.overlap);
    }
    const seen = new Set(ws.flatMap((w) => w.items.map((i) => i.turn)));
    expect(seen.size).toBe(60);
    expect(ws.at(-1)!.firstTurn).toBe(0);
  });

  it('records the turn range and the record uuids at its edges', () => {
    const ws = buildWindows(turns, { budgetTokens: 1000 });
    for (const w of ws) {
      expect(w.firstUuid).toBe(`u${w.firstTurn}`);
      expect(w.lastUuid).toBe(`u${w.lastTurn}`);
      expect(w.endOffset).toBe(w.lastTurn * 100 + 99);
    }
  });

  it('splits a turn too large for one window into numbered parts, losing nothing', () => {
    const giant = Array.from({ length: 3000 }, (_, i) => `line ${i} of the giant pasted log`).join('\n');
    const ts = [turn(0, 'before'), turn(1, giant), turn(2, 'after')];
    const ws = buildWindows(ts, { budgetTokens: 2000, overlapTurns: 1 });
    const parts = ws.filter((w) => w.split);
    expect(parts.length).toBeGreaterThan(1);
    for (const w of parts) {
      expect(w.tokens).toBeLessThanOrEqual(2000);
      expect(w.items[0]!.part!.count).toBe(parts.length);
    }
    // Newest first: part N comes before part 1; joined in order the parts give the turn back.
    const ordered = parts.map((w) => w.items[0]!).sort((a, b) => a.part!.index - b.part!.index);
    expect(ordered.map((p) => p.text).join('')).toBe(`[assistant] ${giant}`);
    expect(ws.map((w) => w.items.map((i) => i.turn).join(',')).join(' | ')).toMatch(/^2 \| (1 \| )+0$/);
  });

  it('splitText respects the budget with any estimator', () => {
    const text = 'é🚀'.repeat(5000);
    const parts = splitText(text, 300, (t) => t.length);
    expect(parts.join('')).toBe(text);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(300);
    expect(estimateTokens('abcd')).toBe(1);
  });

  it('gives no windows for no turns', () => {
    expect(buildWindows([])).toEqual([]);
  });
});

describe('incremental reads', () => {
  const fifty = Array.from({ length: 50 }, (_, i) => turn(i, `turn ${i}`, { timestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z` }));

  it('yields exactly the turns the ledger has not covered', () => {
    const s = session(fifty);
    const r1 = coverageOf(fifty.slice(0, 20), 's1')!;
    const r2 = coverageOf(fifty.slice(30, 40), 's1')!;
    const left = uncoveredTurns(s, [r1, r2]).map((t) => t.index);
    expect(left).toEqual([...range(20, 30), ...range(40, 50)]);
    expect(uncoveredTurns(s, []).length).toBe(50);
    expect(resumeOffsetHint([r1, r2], 's1')).toBe(39 * 100 + 99);
    expect(resumeOffsetHint([r1, r2], 'other')).toBe(0);
  });

  it('a session that grew after a compaction yields only its new part', async () => {
    const bytes = fixtureBytes('claude-all-types.jsonl');
    const text = new TextDecoder().decode(bytes);
    const cut = text.indexOf('"subtype":"compact_boundary"');
    const before = text.slice(0, text.lastIndexOf('\n', cut) + 1);
    const first = await readClaudeCode(chunksOf(before));
    const range = coverageOf(first.turns, first.meta.sessionId)!;
    const grown = await readClaudeCode(chunksOf(text));
    const fresh = uncoveredTurns(grown, [range]);
    expect(fresh.length).toBe(grown.turns.length - first.turns.length);
    expect(fresh[0]!.text).toBe('remember: the CI runner has no network access, vendor everything');
    expect(fresh.every((t) => t.offset >= before.length)).toBe(true);
  });

  it('a resumed session that copies earlier records into a new file does not yield them again', () => {
    const old = session(fifty.slice(0, 30), 'old');
    const done = coverageOf(old.turns, 'old')!;
    // The new file: the same 30 records (same uuids, other offsets), then 10 new ones.
    const copied = fifty.slice(0, 30).map((t) => ({ ...t, offset: t.offset + 7, endOffset: (t.endOffset ?? 0) + 7 }));
    const added = Array.from({ length: 10 }, (_, i) => turn(30 + i, `new ${i}`, { uuid: `n${i}`, lastUuid: `n${i}`, timestamp: `2026-01-02T00:00:0${i}Z` }));
    const resumed = session([...copied, ...added], 'new');
    expect(uncoveredTurns(resumed, [done]).map((t) => t.text)).toEqual(added.map((t) => t.text));
  });

  it('a fork that copied only part of a covered range stops at the range by timestamp', () => {
    const done = coverageOf(fifty.slice(0, 30), 'old')!;
    const copied = fifty.slice(0, 12);
    const added = Array.from({ length: 3 }, (_, i) => turn(12 + i, `fork ${i}`, { uuid: `f${i}`, lastUuid: `f${i}`, timestamp: `2026-02-01T00:00:0${i}Z` }));
    expect(uncoveredTurns(session([...copied, ...added], 'fork'), [done]).map((t) => t.text)).toEqual(['fork 0', 'fork 1', 'fork 2']);
  });

  it('accepts the extraction ledger shape (uuids, no offsets) and unknown uuids', () => {
    const s = session(fifty);
    const ledgerLike: CoveredRange[] = [{ firstUuid: 'u0', lastUuid: 'u9' }, { firstUuid: 'zz', lastUuid: 'yy' }];
    expect(uncoveredTurns(s, ledgerLike).length).toBe(40);
  });
});

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, i) => a + i);
}
