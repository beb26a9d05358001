// A synthetic team corpus for bench/team-store: notes built from the corpus vaults' own vocabulary (word frequencies as
// they are there), seeded so two runs build the same notes, and loaded into a team store in large batches.
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { corpusDir, hasCorpus } from '../../tests/helpers/shared.js';

/** A seeded generator, so two runs build the same corpus. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Vocabulary {
  words: string[];
  cumulative: number[];
}

/** Words of the corpus vaults with their counts, most frequent first; null when the corpus is absent. */
export function vocabulary(): Vocabulary | null {
  const root = hasCorpus ? corpusDir : '';
  const vaults = ['kepano-obsidian', 'dwarvesf-brain'].map((v) => path.join(root, 'vaults', v)).filter((v) => root && fs.existsSync(v));
  if (!vaults.length) return null;
  const counts = new Map<string, number>();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) for (const w of fs.readFileSync(p, 'utf8').toLowerCase().match(/[a-z]{3,15}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  };
  for (const v of vaults) walk(v);
  const words = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  let sum = 0;
  return { words: words.map(([w]) => w), cumulative: words.map(([, c]) => (sum += c)) };
}

function sampler(v: Vocabulary, r: () => number): () => string {
  const total = v.cumulative[v.cumulative.length - 1];
  return () => {
    const x = r() * total;
    let lo = 0;
    let hi = v.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (v.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return v.words[lo];
  };
}

export interface SyntheticNote {
  title: string;
  body: string;
  project: string;
}

/** Note `i` of the corpus (3-5 title words, 40-120 body words, one of 50 projects); the same `i` gives the same note. */
export function syntheticNote(v: Vocabulary, i: number): SyntheticNote {
  const r = rng(26_000_000 + i);
  const word = sampler(v, r);
  return {
    title: Array.from({ length: 3 + Math.floor(r() * 3) }, word).join(' '),
    body: Array.from({ length: 40 + Math.floor(r() * 80) }, word).join(' '),
    project: `p${i % 50}`,
  };
}

/** Questions of 2 to 5 words from the middle of the vocabulary (not stop words, not hapaxes), as people ask. */
export function syntheticQueries(v: Vocabulary, count: number, seed = 26): string[] {
  const r = rng(seed);
  const mid = v.words.slice(100, 5000);
  return Array.from({ length: count }, () => Array.from({ length: 2 + Math.floor(r() * 4) }, () => mid[Math.floor(r() * mid.length)]).join(' '));
}

/**
 * Loads notes `from`..`to` into the store of team `team` as `author`, a note and its one passage per row, in batches
 * of `batch`; returns the milliseconds it took. The store's own SQL for a promotion is one note at a time; this is
 * the bulk path a team importing an existing knowledge base would take.
 */
export async function loadNotes(client: pg.Client, v: Vocabulary, opts: { from: number; to: number; team: string; author: string; batch?: number }): Promise<number> {
  const batch = opts.batch ?? 5000;
  const t0 = performance.now();
  for (let i = opts.from; i < opts.to; i += batch) {
    const notes = Array.from({ length: Math.min(batch, opts.to - i) }, (_, k) => syntheticNote(v, i + k));
    await client.query(
      `with n as (
         insert into engram_team_notes (team, project, title, body, author, vault, source_path, source_hash)
         select $5, p, t, b, $6, 'bench', 'n' || (ord + $4), 'h' from unnest($1::text[], $2::text[], $3::text[]) with ordinality as x(p, t, b, ord)
         returning id, project, title, body)
       insert into engram_team_passages (note_id, team, project, ord, title, heading, body) select id, $5, project, 0, title, '', body from n`,
      [notes.map((n) => n.project), notes.map((n) => n.title), notes.map((n) => n.body), i, opts.team, opts.author],
    );
  }
  return performance.now() - t0;
}
