// Recall in the user's language (issue 31): the Obsidian Help docs in English, Chinese, Japanese, German and French
// (the same 173 notes translated), and the same natural questions asked in each (bench/lang-sets/obsidian-help.json,
// relevant notes named by the `permalink` every translation shares). Per language: hit@1/3/10 and MRR of Engram's
// BM25 search (as a user gets it: `search` in bm25 mode, top 10) beside plain BM25 (split on spaces and punctuation,
// no stemming, body only, k1 1.2, b 0.75) in the same run, and for Chinese and Japanese the other way of cutting words
// (dictionary words vs character pairs) and how many questions come back with nothing.
import fs from 'node:fs';
import os from 'node:os';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VaultIndex, type VaultIndexOptions } from '../src/core/index/vault-index.js';
import { NodeVault } from '../sidecar/hosting/node-vault.js';
import { corpus } from './lib/index-corpus.js';

interface LangSet {
  languages: string[];
  questions: { id: string; relevant: string[]; q: Record<string, string> }[];
  offtopic: Record<string, string>[];
}

interface Score {
  hit1: number;
  hit3: number;
  hit10: number;
  mrr: number;
  empty: number;
  misses: string[];
}

// The engine's extraction side imports its prompt files as text.
register('./md-text-loader.mjs', import.meta.url);

const here = path.dirname(fileURLToPath(import.meta.url));
const helpDir = path.join(corpus, 'vaults', 'obsidian-help');

/** Vault path -> permalink, from each note's frontmatter. */
function permalinks(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) {
        const m = /^permalink:\s*(.+?)\s*$/m.exec(fs.readFileSync(path.join(dir, p), 'utf8'));
        if (m) out.set(p, m[1].replace(/^["']|["']$/g, ''));
      }
    }
  };
  walk('');
  return out;
}

async function score(lang: string, set: LangSet, opts: Partial<VaultIndexOptions>, dir = path.join(helpDir, lang), byPath = false): Promise<Score> {
  const index = new VaultIndex({ vault: new NodeVault(dir), ...opts });
  await index.build();
  // Relevant notes are named by permalink, or (byPath) by their path in the vault.
  const link = byPath ? { get: (p: string) => p } : permalinks(dir);
  const s: Score = { hit1: 0, hit3: 0, hit10: 0, mrr: 0, empty: 0, misses: [] };
  for (const q of set.questions) {
    const hits = (await index.search(q.q[lang], { mode: 'bm25', limit: 10 })).hits;
    if (hits.length === 0) s.empty++;
    const rank = hits.findIndex((h) => q.relevant.includes(link.get(h.path) ?? '')) + 1;
    if (rank === 1) s.hit1++;
    if (rank >= 1 && rank <= 3) s.hit3++;
    else s.misses.push(`${q.id}${rank ? ` (rank ${rank})` : ''}`);
    if (rank >= 1) {
      s.hit10++;
      s.mrr += 1 / rank;
    }
  }
  const n = set.questions.length;
  return { ...s, hit1: s.hit1 / n, hit3: s.hit3 / n, hit10: s.hit10 / n, mrr: s.mrr / n };
}

/** A snapshot store with nothing saved yet: the engine starts as at a host's first start (the index hands it each note it reads). */
const firstStart = { read: () => Promise.resolve(null), write: () => Promise.resolve() };

/**
 * The UserPromptSubmit hook's injection (Engine.context with the relevance gate and the default prompt budget of
 * 1,500 characters and 5 notes): how many questions get a relevant note injected, how many get nothing at all, and
 * which of the off-topic prompts (the set's `offtopic`, about nothing the docs cover) get anything.
 */
async function injected(lang: string, set: LangSet): Promise<{ relevant: number; none: number; misses: string[]; offtopic: string[] }> {
  const { Engine, IndexedVault } = await import('../src/core/engine.js');
  const dir = path.join(helpDir, lang);
  const vault = new NodeVault(dir);
  const engine = new Engine({ ports: { vault, clock: { now: () => Date.now() }, yieldNow: () => Promise.resolve() }, index: new IndexedVault(new VaultIndex({ vault }), { snapshot: firstStart }) });
  await engine.start();
  const link = permalinks(dir);
  let relevant = 0;
  let none = 0;
  const misses: string[] = [];
  for (const q of set.questions) {
    const ctx = await engine.context({ event: 'UserPromptSubmit', prompt: q.q[lang], maxChars: 1500, maxItems: 5 });
    if (!ctx.items.length) none++;
    if (ctx.items.some((i) => q.relevant.includes(link.get(i.path) ?? ''))) relevant++;
    else misses.push(q.id);
  }
  const offtopic: string[] = [];
  for (const o of set.offtopic) {
    const ctx = await engine.context({ event: 'UserPromptSubmit', prompt: o[lang], maxChars: 1500, maxItems: 5 });
    if (ctx.items.length) offtopic.push(`${o[lang]} -> ${ctx.items.map((i) => i.path).join(', ')}`);
  }
  return { relevant, none, misses, offtopic };
}

/**
 * Mixed notes, for the language read per passage: a temporary vault of the English notes, each with its translation
 * into `lang` appended as a last section (matched by permalink), asked the questions in `lang`. Deleted after.
 */
function mixedVault(lang: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `engram-lang-mixed-${lang}-`));
  const en = path.join(helpDir, 'en');
  const other = new Map([...permalinks(path.join(helpDir, lang))].map(([p, link]) => [link, p]));
  for (const [p, link] of permalinks(en)) {
    const translated = other.get(link);
    const body = translated ? fs.readFileSync(path.join(helpDir, lang, translated), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '') : '';
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), `${fs.readFileSync(path.join(en, p), 'utf8')}${body ? `\n\n## ${lang}\n\n${body}` : ''}`);
  }
  return dir;
}

interface KoreanSet {
  vault: string;
  questions: { id: string; relevant: string[]; q: string }[];
  offtopic: string[];
  chitchat: string[];
}

/**
 * Korean, on a 14-note vault we wrote ourselves (tests/fixtures/vault-ko: no Korean vault is in the corpus) with 14
 * questions: search hit@k beside plain BM25, and the prompt hook on the questions, off-topic prompts and small talk.
 */
async function korean(plain: Partial<VaultIndexOptions>, showMisses: boolean): Promise<void> {
  const set = JSON.parse(fs.readFileSync(path.join(here, 'lang-sets', 'korean-own.json'), 'utf8')) as KoreanSet;
  const dir = path.join(here, '..', set.vault);
  const asked: LangSet = { languages: ['ko'], questions: set.questions.map((q) => ({ id: q.id, relevant: q.relevant, q: { ko: q.q } })), offtopic: [] };
  const ours = await score('ko', asked, {}, dir, true);
  const base = await score('ko', asked, plain, dir, true);
  const { Engine, IndexedVault } = await import('../src/core/engine.js');
  const vault = new NodeVault(dir);
  const engine = new Engine({ ports: { vault, clock: { now: () => Date.now() }, yieldNow: () => Promise.resolve() }, index: new IndexedVault(new VaultIndex({ vault }), { snapshot: firstStart }) });
  await engine.start();
  const inject = async (prompt: string): Promise<string[]> => (await engine.context({ event: 'UserPromptSubmit', prompt, maxChars: 1500, maxItems: 5 })).items.map((i) => i.path);
  let relevant = 0;
  for (const q of set.questions) if ((await inject(q.q)).some((p) => q.relevant.includes(p))) relevant++;
  const off = [];
  for (const p of [...set.offtopic, ...set.chitchat]) if ((await inject(p)).length) off.push(p);
  console.log(`ko (${set.questions.length} questions on 14 notes we wrote, not a real vault): Engram ${fmt(ours)}\n    plain BM25 ${fmt(base)}`);
  console.log(`    prompt hook: a relevant note injected for ${relevant} of ${set.questions.length}; off-topic or small talk injected ${off.length} of ${set.offtopic.length + set.chitchat.length}${off.length ? ` (${off.join(' | ')})` : ''}`);
  if (showMisses) console.log(`    Engram misses at 3: ${ours.misses.join(', ') || 'none'}`);
}

const fmt = (s: Score): string => `hit@1 ${s.hit1.toFixed(3)}  hit@3 ${s.hit3.toFixed(3)}  hit@10 ${s.hit10.toFixed(3)}  MRR ${s.mrr.toFixed(3)}  empty ${s.empty}`;

export async function run(): Promise<void> {
  if (!fs.existsSync(helpDir)) {
    console.log(`  skipped: the parallel Obsidian Help vaults are not at ${helpDir} (../shared/corpus absent)`);
    return;
  }
  const set = JSON.parse(fs.readFileSync(path.join(here, 'lang-sets', 'obsidian-help.json'), 'utf8')) as LangSet;
  const plain: Partial<VaultIndexOptions> = { stemming: false, ranking: { bm25: { weights: { title: 0, summary: 0, tags: 0, body: 1 }, k1: 1.2, b: 0.75, restChunks: 0, restTerms: 0, titleCover: 0, whenGain: 0, follows: 0 } } };
  console.log(`  ${set.questions.length} questions in each of ${set.languages.join(', ')} (obsidian-help, 173 notes per language)`);
  const showMisses = process.env.ENGRAM_BENCH_DEBUG !== undefined;
  let en = 0;
  for (const lang of set.languages) {
    const ours = await score(lang, set, {});
    const base = await score(lang, set, plain);
    if (lang === 'en') en = ours.hit3;
    console.log(`${lang}: Engram     ${fmt(ours)}${lang === 'en' ? '' : `  (hit@3 ${ours.hit3 - en >= 0 ? '+' : ''}${(ours.hit3 - en).toFixed(3)} vs English)`}`);
    if (lang === 'zh' || lang === 'ja') console.log(`    Engram with dictionary words (Intl.Segmenter) instead of character pairs: ${fmt(await score(lang, set, { cjk: 'words' }))}`);
    console.log(`    plain BM25 ${fmt(base)}`);
    const inj = await injected(lang, set);
    console.log(`    prompt hook: a relevant note injected for ${inj.relevant} of ${set.questions.length}, nothing injected for ${inj.none}; off-topic prompts injected ${inj.offtopic.length} of ${set.offtopic.length}`);
    if (showMisses) console.log(`    Engram misses at 3: ${ours.misses.join(', ') || 'none'}\n    hook misses: ${inj.misses.join(', ') || 'none'}\n    off-topic injected: ${inj.offtopic.join(' | ') || 'none'}`);
  }
  await korean(plain, showMisses);
  console.log('  mixed notes: each English note with its translation appended as a last section, asked in that language');
  for (const lang of set.languages.filter((l) => l !== 'en')) {
    const dir = mixedVault(lang);
    try {
      const ours = await score(lang, set, {}, dir);
      const base = await score(lang, set, plain, dir);
      console.log(`${lang} in English notes: Engram ${fmt(ours)}\n    plain BM25 ${fmt(base)}`);
      if (showMisses) console.log(`    Engram misses at 3: ${ours.misses.join(', ') || 'none'}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
