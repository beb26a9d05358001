// Fuzz: damaged input of every kind must never throw and never hang. Seeded, bounded iterations.
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../../../src/core/transcript/claude-code.js';
import { readCodex } from '../../../src/core/transcript/codex.js';
import { readChatExport } from '../../../src/core/transcript/chat-export.js';
import { buildWindows } from '../../../src/core/transcript/windows.js';
import { findSignals } from '../../../src/core/transcript/signals.js';
import { redactText } from '../../../src/core/transcript/redact.js';
import { parseJsonLine } from '../../../src/core/transcript/json-records.js';
import type { Session } from '../../../src/core/transcript/types.js';
import { chunked, fixtureBytes, rng, pick } from './helpers.js';
import { adversarialTexts, tornMultiMbLine } from '../../fixtures/adversarial-text.js';

const ROLLOUT = 'rollout-2026-01-05T09-00-00-019c0000-1111-7222-8333-444455556666.jsonl';

type Reader = (bytes: Uint8Array, sizes: number[]) => Promise<Session[]>;
const readers: [string, string, Reader][] = [
  ['claude-code', 'claude-all-types.jsonl', async (b, sz) => [await readClaudeCode(chunked(b, sz), { maxLineBytes: 4 << 20 })]],
  ['claude-code damaged', 'claude-damaged.jsonl', async (b, sz) => [await readClaudeCode(chunked(b, sz))]],
  ['codex', ROLLOUT, async (b, sz) => [await readCodex(chunked(b, sz))]],
  [
    'chatgpt export',
    'chatgpt-conversations.json',
    async (b, sz) => {
      const out: Session[] = [];
      for await (const s of readChatExport(chunked(b, sz), { maxElementBytes: 4 << 20 })) out.push(s);
      return out;
    },
  ],
];

async function survive(read: Reader, bytes: Uint8Array, sizes: number[]): Promise<Session[]> {
  const sessions = await read(bytes, sizes);
  // Everything downstream of the reader must take what it gives.
  for (const s of sessions) {
    buildWindows(s.turns, { budgetTokens: 500 });
    findSignals(s);
  }
  return sessions;
}

describe.each(readers)('fuzz %s', (_name, file, read) => {
  const original = fixtureBytes(file);

  it('random truncation', async () => {
    const r = rng(11);
    for (let i = 0; i < 120; i++) {
      const cut = Math.floor(r() * original.length);
      const sessions = await survive(read, original.subarray(0, cut), [1 + Math.floor(r() * 300)]);
      for (const s of sessions) if (s.stats && !file.endsWith('.json')) expect(s.stats.bytes).toBe(cut);
    }
  });

  it('byte flips', async () => {
    const r = rng(12);
    for (let i = 0; i < 120; i++) {
      const b = original.slice();
      const flips = 1 + Math.floor(r() * 20);
      for (let k = 0; k < flips; k++) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
      await survive(read, b, [1 + Math.floor(r() * 500)]);
    }
  });

  it('giant lines and giant strings', async () => {
    const r = rng(13);
    const enc = new TextEncoder();
    for (let i = 0; i < 6; i++) {
      const size = (1 + Math.floor(r() * 6)) << 20;
      const giant = pick(r, [
        () => `{"type":"user","uuid":"g${i}","message":{"role":"user","content":"${'x'.repeat(size)}"}}`,
        () => `{"type":"assistant","uuid":"g${i}","message":{"id":"m","content":[{"type":"text","text":"${'{"a":'.repeat(size / 8)}"}]}}`,
        () => '{'.repeat(size),
        () => `{"type":"user"${',"k":"}{\\""'.repeat(size / 16)}`,
      ])();
      const text = new TextDecoder().decode(original);
      const at = text.indexOf('\n', Math.floor(r() * text.length));
      const mixed = enc.encode(`${text.slice(0, at + 1)}${giant}\n${text.slice(at + 1)}`);
      await survive(read, mixed, [65536]);
    }
  }, 60_000);

  it('wrong types in every field', async () => {
    const r = rng(14);
    const values = [null, 0, -1, 1e308, true, '', 'x', [], [null], {}, { type: 'text' }, [{ type: 'tool_use' }], '\u0000', '{"nested":"json"}'];
    const lines = new TextDecoder().decode(original).split('\n');
    for (let i = 0; i < 80; i++) {
      const out = lines.map((line) => {
        let v: unknown;
        try {
          v = JSON.parse(line);
        } catch {
          return line;
        }
        mutate(v, r, values, 0);
        return JSON.stringify(v);
      });
      await survive(read, new TextEncoder().encode(out.join('\n')), [4096]);
    }
  });
});

function mutate(v: unknown, r: () => number, values: unknown[], depth: number): void {
  if (typeof v !== 'object' || v === null || depth > 6) return;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (r() < 0.15) o[k] = structuredClone(pick(r, values));
    else mutate(o[k], r, values, depth + 1);
  }
}

describe('fuzz line parser and redactor', () => {
  it('parseJsonLine never throws on random text', () => {
    const r = rng(15);
    const parts = ['{', '}', '"', '\\', ':', ',', '[', ']', '{"type":"user"', '{"parentUuid":null', 'null', '1', ' ', '\u00e9', '\ud83d'];
    for (let i = 0; i < 3000; i++) {
      const n = Math.floor(r() * 60);
      let s = '';
      for (let k = 0; k < n; k++) s += pick(r, parts);
      parseJsonLine(s);
    }
  });

  it('recovers from a multi-MB torn line', () => {
    const r = parseJsonLine(tornMultiMbLine());
    expect(r.torn).toBe(true);
  });

  // Fast is a figure (`npm run bench -- adversarial`); here each finishes (a backtracking regular expression would
  // run for hours on these).
  it('redaction finishes on adversarial text', async () => {
    const texts = adversarialTexts(rng(16));
    const outs = [];
    for (const t of texts) outs.push(await redactText(t));
    expect(outs).toHaveLength(texts.length);
    // A run of plain letters is no secret: it comes back whole.
    expect(outs[0].text).toBe(texts[0]);
  });
});
