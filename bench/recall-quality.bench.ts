// Recall quality on the three real corpus vaults (issue 21): question sets written by reading the notes
// (bench/recall-sets/<vault>.json), asked through the product's one search road (Engine.search, what `engram search`
// and recall use) and the UserPromptSubmit injection (Engine.context with the relevance gate and the default prompt
// budget), beside a plain whole-note BM25 written here, in the same run.
// Prints hit@1/3/10 and MRR overall and per kind, off-topic injections, the note most often in a top 3; writes the
// injected text of every on-topic prompt, the failures and a JSON summary to .tmp/recall-quality/.
// `ENGRAM_RECALL_VAULTS=kepano-obsidian,dwarvesf-brain npm run bench -- recall-quality` runs a subset of the vaults.
import fs from 'node:fs';
import path from 'node:path';
import { register } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

// The engine's extraction side imports its prompt files as text.
register('./md-text-loader.mjs', import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const vaultsDir = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'), 'corpus', 'vaults');
const setsDir = path.join(root, 'bench', 'recall-sets');
/** Questions written after the ranking was tuned, from notes the sets above never name: reported apart, never tuned on. */
const heldOutDir = path.join(setsDir, 'held-out');
/**
 * Whether each injected relevant passage answers its question, judged by reading it: <vault>.tsv, one row a judgement
 * (question id, note path, passage heading or '', yes|no, why). A passage not judged yet is written to
 * .tmp/recall-quality/<vault>.unjudged.tsv with the text that went out, to be read and added.
 */
const judgedDir = path.join(root, 'bench', 'recall-judged');
const outDir = path.join(root, '.tmp', 'recall-quality');
/** The hook's default prompt budget (config keys recall.prompt_chars / recall.prompt_items). */
const PROMPT_CHARS = 1500;
const PROMPT_ITEMS = 5;

export interface RecallQuestion {
  id: string;
  kind: string;
  q: string;
  relevant: string[];
  answer_heading?: string;
}
export interface RecallSet {
  vault: string;
  questions: RecallQuestion[];
  offtopic: string[];
}

// ---- plain BM25 baseline: whole note (file name + full text), k1 1.2, b 0.75, lowercase split on non-letters,
// English stop words dropped, no stemming.
const STOP = new Set(
  'a an and are as at be but by for from has have how i if in into is it its me my of on or our so that the their then there these this to was we were what when where which who why will with would you your do does did can could should not no yes all any about'.split(' '),
);
const words = (t: string): string[] => t.toLowerCase().split(/[^\p{L}]+/u).filter((w) => w.length > 1 && !STOP.has(w));
class PlainBM25 {
  private tf: Map<string, number>[] = [];
  private len: number[] = [];
  private df = new Map<string, number>();
  private paths: string[] = [];
  add(p: string, text: string): void {
    const m = new Map<string, number>();
    const ws = words(`${path.basename(p, '.md')}\n${text}`);
    for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
    for (const w of m.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
    this.tf.push(m);
    this.len.push(ws.length);
    this.paths.push(p);
  }
  search(q: string, k = 10): string[] {
    const n = this.paths.length;
    const avg = this.len.reduce((a, b) => a + b, 0) / n;
    const terms = [...new Set(words(q))];
    const scores: [number, number][] = [];
    for (let d = 0; d < n; d++) {
      let s = 0;
      for (const t of terms) {
        const f = this.tf[d].get(t);
        if (!f) continue;
        const df = this.df.get(t)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * this.len[d]) / avg));
      }
      if (s > 0) scores.push([s, d]);
    }
    return scores.sort((a, b) => b[0] - a[0]).slice(0, k).map(([, d]) => this.paths[d]);
  }
}

// ---- metrics
interface Row {
  q: RecallQuestion;
  ranked: string[];
}
const rankOf = (r: Row): number => {
  const i = r.ranked.findIndex((p) => r.q.relevant.includes(p));
  return i < 0 ? Infinity : i + 1;
};
function scores(rows: Row[]): { n: number; h1: number; h3: number; h10: number; mrr: number } {
  const ranks = rows.map(rankOf);
  const n = rows.length || 1;
  return {
    n: rows.length,
    h1: ranks.filter((x) => x <= 1).length / n,
    h3: ranks.filter((x) => x <= 3).length / n,
    h10: ranks.filter((x) => x <= 10).length / n,
    mrr: ranks.reduce((a, x) => a + (x <= 10 ? 1 / x : 0), 0) / n,
  };
}
const f2 = (x: number): string => x.toFixed(2);
const rank = (r: number): string => (r === Infinity ? '>10' : String(r));
const cells = (rows: Row[]): string => {
  const s = scores(rows);
  return `${f2(s.h1)}  ${f2(s.h3)}  ${f2(s.h10)}  ${f2(s.mrr)}`;
};
/**
 * The note in the most top 3s, and in how many of those it was not an expected answer; with `unaskedOnly`, the note
 * most often in a top 3 where it was not expected (what crowds out answers).
 */
function dominance(lists: { ranked: string[]; relevant: string[] }[], unaskedOnly = false): { note: string; count: number; share: number; unasked: number } {
  const c = new Map<string, number>();
  for (const l of lists) for (const p of l.ranked.slice(0, 3)) if (!unaskedOnly || !l.relevant.includes(p)) c.set(p, (c.get(p) ?? 0) + 1);
  let best = { note: '-', count: 0 };
  for (const [note, count] of c) if (count > best.count) best = { note, count };
  const unasked = lists.filter((l) => l.ranked.slice(0, 3).includes(best.note) && !l.relevant.includes(best.note)).length;
  return { ...best, unasked, share: lists.length ? best.count / lists.length : 0 };
}
const squash = (t: string): string => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** The text under a heading, down to the next heading of the same or a higher level ('' when the note lacks it). */
function sectionText(note: string, heading: string): string {
  const lines = note.split('\n');
  const want = squash(heading);
  const at = lines.findIndex((l) => /^#{1,6}\s/.test(l) && squash(l.replace(/^#+/, '')) === want);
  if (at < 0) return '';
  const level = /^#+/.exec(lines[at])![0].length;
  const end = lines.findIndex((l, i) => i > at && /^#{1,6}\s/.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(at + 1, end < 0 ? undefined : end).join('\n');
}

/** Whether the injected text quotes the answering section: some run of 6 words of the injection is in it. */
function quotesSection(injected: string, section: string): boolean {
  const sec = ` ${squash(section)} `;
  const w = squash(injected).split(' ');
  for (let i = 0; i + 6 <= w.length; i++) if (sec.includes(` ${w.slice(i, i + 6).join(' ')} `)) return true;
  return false;
}

/** The heading path of the passage injected for a note ('' for a note quoted whole), read from its line of the text. */
function injectedHeading(text: string, notePath: string): { heading: string; line: string } | null {
  const line = text.split('\n').find((l) => l.startsWith(`- [[${notePath.replace(/\.md$/i, '')}|`));
  if (!line) return null;
  const m = /\]\](?: \([^)]*\))?: § (.+?): /.exec(line);
  return { heading: m ? m[1] : '', line };
}

function readJudged(vault: string): Map<string, { answers: boolean; why: string }> {
  const out = new Map<string, { answers: boolean; why: string }>();
  const file = path.join(judgedDir, `${vault}.tsv`);
  if (!fs.existsSync(file)) return out;
  for (const row of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!row.trim() || row.startsWith('#')) continue;
    const [id, note, heading, verdict, why] = row.split('\t');
    out.set(`${id}\t${note}\t${heading ?? ''}`, { answers: verdict === 'yes', why: why ?? '' });
  }
  return out;
}

function readNotes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.md')) out.set(r, fs.readFileSync(path.join(dir, r), 'utf8'));
    }
  };
  walk('');
  return out;
}

export async function run(): Promise<void> {
  if (!fs.existsSync(vaultsDir)) {
    console.log(`  skipped: the shared corpus (${vaultsDir}) is not here`);
    return;
  }
  const wanted = (process.env.ENGRAM_RECALL_VAULTS ?? '').split(',').filter(Boolean);
  const sets = fs
    .readdirSync(setsDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(setsDir, f), 'utf8')) as RecallSet)
    .filter((s) => !wanted.length || wanted.includes(s.vault));
  const { Engine, IndexedVault } = await import('../src/core/engine.js');
  const { VaultIndex } = await import('../src/core/index/vault-index.js');
  const { SEARCH_FLOOR } = await import('../src/core/index/search.js');
  const { NodeVault } = await import('../sidecar/hosting/node-vault.js');
  fs.mkdirSync(outDir, { recursive: true });

  for (const set of sets) {
    const dir = path.join(vaultsDir, set.vault);
    if (!fs.existsSync(dir)) {
      console.log(`  ${set.vault}: skipped, no such vault under ${vaultsDir}`);
      continue;
    }
    const notes = readNotes(dir);
    const missing = set.questions.flatMap((q) => q.relevant.filter((p) => !notes.has(p)).map((p) => `${q.id}: ${p}`));
    for (const q of set.questions) {
      if (q.answer_heading && !q.relevant.some((p) => sectionText(notes.get(p) ?? '', q.answer_heading!))) missing.push(`${q.id}: no heading "${q.answer_heading}"`);
    }
    if (missing.length) console.log(`  ${set.vault}: ${missing.length} relevant paths or answer headings not in the vault: ${missing.slice(0, 5).join('; ')}`);

    const t0 = performance.now();
    const vault = new NodeVault(dir);
    const ports = { vault, clock: { now: () => Date.now() }, yieldNow: () => new Promise<void>((r) => setImmediate(r)) };
    // Started as a host's first start is (a snapshot store with nothing saved yet): the index builds itself and hands
    // the engine each note it reads, with its terms, so the gate's statistics here are those a user's first start makes.
    const snapshot = { read: () => Promise.resolve(null), write: () => Promise.resolve() };
    const engine = new Engine({ ports, index: new IndexedVault(new VaultIndex({ vault }), { snapshot }) });
    await engine.start();
    const built = performance.now() - t0;
    const plain = new PlainBM25();
    for (const [p, t] of notes) plain.add(p, t);

    const engramRows: Row[] = [];
    /** Each prompt's top hits that clear the search floor: what search shows as close matches. */
    const closeLists: { ranked: string[]; relevant: string[] }[] = [];
    const plainRows: Row[] = [];
    const injected: string[] = [];
    const failures: string[] = [];
    /** Questions whose answer Engram ranks below where plain BM25 ranks it (what "ahead on every kind" is lost on). */
    const behind: string[] = [];
    let injectedAny = 0;
    let injectedRelevant = 0;
    let headingSeen = 0;
    let headingAsked = 0;
    let sectionQuoted = 0;
    // Questions whose every answer is a note hooks never inject (outside text such as a clipping, words to an AI).
    let neverInjectable = 0;
    const judged = readJudged(set.vault);
    let answers = 0;
    let judgedSeen = 0;
    const unjudged: string[] = [];
    for (const q of set.questions) {
      const hits = await engine.search(q.q, { limit: 10 });
      const e = { q, ranked: hits.map((h) => h.path) };
      closeLists.push({ ranked: hits.filter((h) => (h.coverage ?? 1) >= SEARCH_FLOOR).map((h) => h.path), relevant: q.relevant });
      const b = { q, ranked: plain.search(q.q, 10) };
      engramRows.push(e);
      plainRows.push(b);
      const ctx = await engine.context({ event: 'UserPromptSubmit', prompt: q.q, maxChars: PROMPT_CHARS, maxItems: PROMPT_ITEMS });
      const vetted = await Promise.all(q.relevant.map((p) => engine.vet(p)));
      if (vetted.every((v) => !v || v.trust.level === 'outside' || v.directives.length > 0)) neverInjectable++;
      const gave = ctx.items.map((i) => i.path);
      const rel = gave.some((p) => q.relevant.includes(p));
      if (gave.length) injectedAny++;
      if (rel) injectedRelevant++;
      for (const p of gave.filter((g) => q.relevant.includes(g)).slice(0, 1)) {
        // The first relevant note injected: does the passage that went out answer the question?
        const at = injectedHeading(ctx.text ?? '', p);
        if (!at) continue;
        const j = judged.get(`${q.id}\t${p}\t${at.heading}`);
        if (j) {
          judgedSeen++;
          if (j.answers) answers++;
        } else {
          unjudged.push(`${q.id}\t${p}\t${at.heading}\t?\t${q.q} => ${at.line.replace(/\t/g, ' ')}`);
        }
      }
      let headingNote = '';
      if (rel && q.answer_heading) {
        headingAsked++;
        const ok = squash(ctx.text ?? '').includes(squash(q.answer_heading));
        if (ok) headingSeen++;
        const section = q.relevant.map((p) => sectionText(notes.get(p) ?? '', q.answer_heading!)).join('\n');
        const quoted = quotesSection(ctx.text ?? '', section);
        if (quoted) sectionQuoted++;
        headingNote = ` · answer heading "${q.answer_heading}" ${ok ? 'in' : 'NOT in'} the injected text; its section ${quoted ? 'quoted' : 'NOT quoted'}`;
      }
      injected.push(
        `## ${q.id} (${q.kind}): ${q.q}\nexpected: ${q.relevant.join(', ')}${q.answer_heading ? ` § ${q.answer_heading}` : ''}\n` +
          `injected: ${gave.length ? gave.join(', ') : 'nothing'}${rel ? ' (relevant among them)' : ''}${headingNote}\n\n` +
          `${ctx.text ? ctx.text.trim() : '(no text)'}\n`,
      );
      const r = rankOf(e);
      if (r > rankOf(b)) behind.push(`${q.id} (${q.kind}) engram rank ${rank(r)}, plain rank ${rank(rankOf(b))}: ${q.q}\n  engram top 3: ${e.ranked.slice(0, 3).join(' | ')}\n  plain top 3: ${b.ranked.slice(0, 3).join(' | ')}`);
      if (r > 3) {
        failures.push(
          `## ${q.id} (${q.kind}) engram rank ${r === Infinity ? '>10' : r}, plain rank ${rankOf(b) === Infinity ? '>10' : rankOf(b)}: ${q.q}\n` +
            `expected: ${q.relevant.join(', ')}\nengram top 3: ${e.ranked.slice(0, 3).join(' | ') || '-'}\nplain top 3: ${b.ranked.slice(0, 3).join(' | ') || '-'}\n`,
        );
      }
    }
    const heldFile = path.join(heldOutDir, `${set.vault}.json`);
    const held = fs.existsSync(heldFile) ? (JSON.parse(fs.readFileSync(heldFile, 'utf8')) as RecallSet).questions : [];
    const heldEngram: Row[] = [];
    const heldPlain: Row[] = [];
    for (const q of held) {
      heldEngram.push({ q, ranked: (await engine.search(q.q, { limit: 10 })).map((h) => h.path) });
      heldPlain.push({ q, ranked: plain.search(q.q, 10) });
      const r = rankOf(heldEngram[heldEngram.length - 1]);
      const rp = rankOf(heldPlain[heldPlain.length - 1]);
      if (r > rp) behind.push(`held-out ${q.id} (${q.kind}) engram rank ${rank(r)}, plain rank ${rank(rp)}: ${q.q}\n  engram top 3: ${heldEngram[heldEngram.length - 1].ranked.slice(0, 3).join(' | ')}\n  plain top 3: ${heldPlain[heldPlain.length - 1].ranked.slice(0, 3).join(' | ')}`);
      if (r > 3) failures.push(`## held-out ${q.id} (${q.kind}) engram rank ${r === Infinity ? '>10' : r}: ${q.q}\nexpected: ${q.relevant.join(', ')}\nengram top 3: ${heldEngram[heldEngram.length - 1].ranked.slice(0, 3).join(' | ') || '-'}\n`);
    }
    let offInjected = 0;
    let offPlainHits = 0;
    const offLines: string[] = [];
    const offEngramLists: string[][] = [];
    const offPlainLists: string[][] = [];
    for (const q of set.offtopic) {
      const ctx = await engine.context({ event: 'UserPromptSubmit', prompt: q, maxChars: PROMPT_CHARS, maxItems: PROMPT_ITEMS });
      const hits = await engine.search(q, { limit: 10 });
      offEngramLists.push(hits.map((h) => h.path));
      closeLists.push({ ranked: hits.filter((h) => (h.coverage ?? 1) >= SEARCH_FLOOR).map((h) => h.path), relevant: [] });
      const p = plain.search(q, 10);
      offPlainLists.push(p);
      if (p.length) offPlainHits++;
      if (ctx.items.length) {
        offInjected++;
        offLines.push(`## off-topic: ${q}\ninjected ${(ctx.text ?? '').length} chars: ${ctx.items.map((i) => i.path).join(', ')}\n\n${(ctx.text ?? '').trim()}\n`);
      }
    }

    console.log(`\n  ${set.vault}: ${notes.size} notes, ${set.questions.length} questions + ${set.offtopic.length} off-topic; engine ready in ${(built / 1000).toFixed(1)} s`);
    console.log(`  ${''.padEnd(20)}     engram                  |  plain BM25`);
    console.log(`  ${'kind'.padEnd(20)}  n  h@1   h@3   h@10  MRR   |  h@1   h@3   h@10  MRR`);
    const kinds = [...new Set(set.questions.map((q) => q.kind))];
    for (const k of ['all', ...kinds]) {
      const pick = (rows: Row[]): Row[] => (k === 'all' ? rows : rows.filter((r) => r.q.kind === k));
      console.log(`  ${k.padEnd(20)} ${String(pick(engramRows).length).padStart(2)}  ${cells(pick(engramRows))}  |  ${cells(pick(plainRows))}`);
    }
    if (held.length) console.log(`  ${'held-out'.padEnd(20)} ${String(held.length).padStart(2)}  ${cells(heldEngram)}  |  ${cells(heldPlain)}`);
    const lists = (rows: Row[], off: string[][]) => [...rows.map((r) => ({ ranked: r.ranked, relevant: r.q.relevant })), ...off.map((ranked) => ({ ranked, relevant: [] }))];
    const de = dominance(lists(engramRows, offEngramLists));
    const dp = dominance(lists(plainRows, offPlainLists));
    const dc = dominance(closeLists);
    const du = dominance(lists(engramRows, offEngramLists), true);
    const dpu = dominance(lists(plainRows, offPlainLists), true);
    console.log(`  off-topic prompts that inject anything: engram ${offInjected}/${set.offtopic.length}; plain BM25 returns hits for ${offPlainHits}/${set.offtopic.length} (no floor)`);
    console.log(`  on-topic prompts that inject anything: ${injectedAny}/${set.questions.length}; a relevant note injected: ${injectedRelevant}/${set.questions.length}; for ${neverInjectable} every answer is a note hooks never inject (outside text, words to an AI)`);
    console.log(`  the injected relevant passage answers the question (read and judged, bench/recall-judged): ${answers}/${judgedSeen} judged (${judgedSeen ? ((100 * answers) / judgedSeen).toFixed(0) : '-'}%), ${unjudged.length} not judged yet`);
    if (headingAsked) console.log(`  of ${headingAsked} relevant injections whose question names an answer section: heading shown ${headingSeen}, section text quoted ${sectionQuoted} (proxies for "the passage answers")`);
    console.log(`  most frequent note in top 3s (all ${set.questions.length + set.offtopic.length} prompts): engram ${de.note} ${de.count} (${(de.share * 100).toFixed(0)}%, ${de.unasked} where not expected); plain ${dp.note} ${dp.count} (${(dp.share * 100).toFixed(0)}%, ${dp.unasked} where not expected)`);
    console.log(`  most frequent note in top 3s where not expected: engram ${du.note} ${du.count} (${(du.share * 100).toFixed(0)}%); plain ${dpu.note} ${dpu.count} (${(dpu.share * 100).toFixed(0)}%)`);
    console.log(`  the same among hits that clear the search floor (coverage >= ${SEARCH_FLOOR}): engram ${dc.note} ${dc.count} (${(dc.share * 100).toFixed(0)}%, ${dc.unasked} where not expected)`);
    const dcu = dominance(closeLists, true);
    console.log(`  among hits that clear the floor, where not expected (what crowds out answers): engram ${dcu.note} ${dcu.count} (${(dcu.share * 100).toFixed(0)}%)`);
    // Were hits below the floor left out of every list (not only flagged "no close match"): what on-topic questions lose.
    const closeRows: Row[] = set.questions.map((q, i) => ({ q, ranked: closeLists[i].ranked }));
    const noClose = closeLists.filter((l) => l.ranked.length === 0);
    console.log(`  hits that clear the floor only: ${cells(closeRows)} (h@1 h@3 h@10 MRR); prompts with no close match: ${noClose.filter((l) => l.relevant.length).length} on-topic, ${noClose.filter((l) => !l.relevant.length).length}/${set.offtopic.length} off-topic`);
    const base = path.join(outDir, set.vault);
    fs.writeFileSync(`${base}.injected.md`, `# Injected text per on-topic prompt (${set.vault})\n\n${injected.join('\n')}\n# Off-topic prompts that inject\n\n${offLines.join('\n') || 'none\n'}`);
    fs.writeFileSync(`${base}.failures.md`, `# Questions whose expected note is not in Engram's top 3 (${set.vault})\n\n${failures.join('\n') || 'none\n'}\n# Questions whose answer Engram ranks below plain BM25\n\n${behind.join('\n') || 'none'}\n`);
    fs.writeFileSync(`${base}.unjudged.tsv`, unjudged.length ? `${unjudged.join('\n')}\n` : '');
    const byKind = Object.fromEntries(['all', ...kinds].map((k) => [k, { engram: scores(k === 'all' ? engramRows : engramRows.filter((r) => r.q.kind === k)), plain: scores(k === 'all' ? plainRows : plainRows.filter((r) => r.q.kind === k)) }]));
    const summary = { vault: set.vault, notes: notes.size, byKind, heldOut: { engram: scores(heldEngram), plain: scores(heldPlain) }, offtopicInjected: offInjected, offtopic: set.offtopic.length, injectedRelevant, passageAnswers: answers, passagesJudged: judgedSeen, passagesUnjudged: unjudged.length, neverInjectable, headingAsked, headingSeen, sectionQuoted, topNote: { engram: de, plain: dp, engramClose: dc, engramUnasked: du, plainUnasked: dpu } };
    fs.writeFileSync(`${base}.summary.json`, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(`  written: ${path.relative(root, `${base}.injected.md`)}, ${path.relative(root, `${base}.failures.md`)}, ${path.relative(root, `${base}.summary.json`)}`);
  }
}
