// A turn larger than a window is sent whole, in numbered parts, never shortened; and its parts are extracted
// exactly once, even across a crash between parts.
import { describe, expect, it } from 'vitest';
import { extractSession } from '../../../src/core/extract/extract.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { ScriptedBackend, beatsFor, extractEnv, extractOptions, session, vaultSnapshot } from '../../helpers/extract.js';
import type { CompletionRequest } from '../../../src/core/extract/backends/types.js';
import type { Session } from '../../../src/core/transcript/types.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const clock = { now: () => T0 };

// 50,000+ characters of distinct sentences, so that any dropped stretch is noticed.
const sentences = Array.from({ length: 900 }, (_, i) => `Fact ${String(i).padStart(3, '0')}: the build step ${i} keeps its cache in dir-${i * 7}.`);
const giant = sentences.map((s, i) => s + (i % 10 === 9 ? '\n\n' : ' ')).join('').trim();

function giantSession(): Session {
  return session('big', [
    ['user', 'We decided to cache build outputs per step, see the log below.'],
    ['assistant', 'Understood.'],
    ['user', giant],
    ['assistant', 'Thanks, noted all of it.'],
  ]);
}

function setup() {
  return extractEnv(clock);
}

const sent = (reqs: CompletionRequest[]) => reqs.map((r) => r.user).join('\n');

describe('a turn larger than a window', () => {
  it('is at least 50,000 characters (control)', () => {
    expect(giant.length).toBeGreaterThanOrEqual(50_000);
  });

  it('with the default window: the whole turn reaches the model, nothing omitted', async () => {
    const env = setup();
    const backend = new ScriptedBackend(() => '{"beats":[]}');
    await extractSession(extractOptions(env, backend, giantSession()));
    const text = sent(backend.requests);
    for (const s of sentences) expect(text).toContain(s);
    expect(text).not.toMatch(/characters omitted/);
  });

  it('with a small window: split into numbered parts that together carry all of its text; a rerun adds nothing', async () => {
    const env = setup();
    const backend = new ScriptedBackend((req) => beatsFor(req));
    const run = await extractSession(extractOptions(env, backend, giantSession(), { window: { budgetTokens: 4_000 } }));
    const partReqs = backend.requests.filter((r) => /part \d+ of \d+/.test(r.user));
    expect(partReqs.length).toBeGreaterThanOrEqual(3);
    // Every part is one turn (index 2) and the parts, in order, are the turn's text exactly.
    expect(partReqs.every((r) => r.turns?.length === 1 && r.turns[0].index === 2)).toBe(true);
    expect(partReqs.map((r) => r.turns![0].text).join('')).toBe(giant);
    expect(partReqs.map((r) => /part (\d+) of (\d+)/.exec(r.user)!.slice(1).join('/'))).toEqual(partReqs.map((_, i) => `${i + 1}/${partReqs.length}`));
    for (const s of sentences) expect(sent(backend.requests)).toContain(s);
    // Each part's beat is its own note with its own engram_id.
    const files = await vaultSnapshot(env.vault);
    const ids = Object.values(files).map((t) => parseNote(t).data?.engram_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(run.beats.created).toBe(ids.length);
    expect(run.beats.created).toBeGreaterThanOrEqual(partReqs.length + 1);

    const calls = backend.calls;
    const again = await extractSession(extractOptions(env, backend, giantSession(), { window: { budgetTokens: 4_000 } }));
    expect(again.windows.total).toBe(0);
    expect(backend.calls).toBe(calls);
    expect(await vaultSnapshot(env.vault)).toEqual(files);
  });

  it('a crash between two parts, then a rerun: exactly the notes of an uninterrupted run, no part asked twice', async () => {
    const clean = setup();
    const cleanBackend = new ScriptedBackend((req) => beatsFor(req));
    await extractSession(extractOptions(clean, cleanBackend, giantSession(), { window: { budgetTokens: 4_000 } }));
    const expected = await vaultSnapshot(clean.vault);

    const env = setup();
    const first = new ScriptedBackend((req) => beatsFor(req));
    // Window 1 holds turns 0–1, windows 2… the parts: crash after the journal of the second part.
    const crash = (p: string, n: number) => {
      if (p === 'after-journal' && n === 3) throw new Error('simulated crash');
    };
    await expect(extractSession(extractOptions(env, first, giantSession(), { window: { budgetTokens: 4_000 }, fault: crash }))).rejects.toThrow('simulated crash');
    expect(first.calls).toBe(3);
    const second = new ScriptedBackend((req) => beatsFor(req));
    const rerun = await extractSession(extractOptions(env, second, giantSession(), { window: { budgetTokens: 4_000 } }));
    expect(rerun.windows.replayed).toBe(1);
    // Only the parts never asked before (and the last turn's window) go to the model.
    expect(second.calls).toBe(cleanBackend.calls - 3);
    expect(second.requests.some((r) => /part [12] of/.test(r.user))).toBe(false);
    expect(await vaultSnapshot(env.vault)).toEqual(expected);
  });
});
