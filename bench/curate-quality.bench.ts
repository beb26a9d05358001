// Curation quality on the three corpus vaults: are the merges and splits `engram restructure` proposes right?
// (a) plans restructure as the CLI does (word vectors: the corpus has no embeddings) and writes every proposal to
//     .tmp/curate-quality/<vault>.md for reading; precision comes from the judgments in bench/curate-judged/<vault>.tsv
//     (made by reading those files: kind, paths, right|wrong, why), so it can be recomputed after any change; recall
//     on real notes from the judged-right merges plus `duplicate` lines (pairs a reader found in the vault);
// (b) plants duplicates (a real note copied with a new title, one paragraph reworded, a section added; a copy filed
//     under a handle the original gives; a note under another name that says it duplicates the original, with half
//     its text) and counts how many are proposed for a merge with their original;
// (c) plants template siblings (one note's skeleton, each filled with a different note's text) and counts any proposed;
// (d) checks no merged note repeats a sentence;
// (e) prints a naive rule (TF-IDF cosine over the whole text ≥ 0.8) beside Engram, judged with the same file.
// The 13,415-note vault runs whole (planning there takes tens of seconds on this machine).
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { catalogNote, loadCatalog, NoteCatalog } from '../src/core/curate/catalog.js';
import { LexicalVectors } from '../src/core/curate/lexical-vectors.js';
import { curatable } from '../src/core/curate/merge-candidates.js';
import { cosine, neighbourJoin } from '../src/core/curate/neighbour-join.js';
import type { Proposal } from '../src/core/curate/proposals.js';
import { planRestructure } from '../src/core/curate/restructure.js';
import { curateSettings } from '../src/core/curate/settings.js';
import { rng } from '../src/core/rng.js';
import { NodeVault } from '../sidecar/hosting/node-vault.js';

const root = path.resolve(import.meta.dirname, '..');
const vaultsDir = path.resolve(root, '..', 'shared', 'corpus', 'vaults');
const VAULTS = ['kepano-obsidian', 'dwarvesf-brain', 'digitalyoshixi-zettelkasten'];
const judgedDir = path.join(root, 'bench', 'curate-judged');
const outDir = path.join(root, '.tmp', 'curate-quality');

type Verdict = { right: boolean; why: string };

/** A proposal's key in the judged files: its kind and its notes, sorted. */
export function keyOf(kind: string, paths: string[]): string {
  return `${kind}\t${[...paths].sort().join(' + ')}`;
}

function loadJudged(vault: string): Map<string, Verdict> {
  const file = path.join(judgedDir, `${vault}.tsv`);
  const out = new Map<string, Verdict>();
  if (!fs.existsSync(file)) return out;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [kind, paths, verdict, why] = line.split('\t');
    out.set(keyOf(kind, paths.split(' + ')), { right: verdict === 'right', why: why ?? '' });
  }
  return out;
}

function proposalKey(p: Proposal): string {
  return keyOf(p.kind === 'hub' ? 'hub' : p.kind, p.sources.map((s) => s.path));
}

function precision(keys: string[], judged: Map<string, Verdict>): string {
  let right = 0;
  let n = 0;
  for (const k of keys) {
    const v = judged.get(k);
    if (!v) continue;
    n++;
    if (v.right) right++;
  }
  const unjudged = keys.length - n;
  return `${n ? (right / n).toFixed(2) : '—'} (${right}/${n} judged right${unjudged ? `, ${unjudged} unjudged` : ''})`;
}

/** Sentences of a text, normalised (lower case, words only), long enough to mean something. */
export function sentences(text: string): string[] {
  return text
    .replace(/^---\n[\s\S]*?\n---\n/, '')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim())
    .filter((s) => s.split(' ').length >= 5);
}

/** Sentences a merged text repeats that no single source repeated. */
function repeatedSentences(merged: string, sources: string[]): string[] {
  const already = new Set<string>();
  for (const s of sources) {
    const seen = new Set<string>();
    for (const x of sentences(s)) (seen.has(x) ? already : seen).add(x);
  }
  const seen = new Set<string>();
  const out: string[] = [];
  for (const x of sentences(merged)) {
    if (seen.has(x) && !already.has(x)) out.push(x);
    seen.add(x);
  }
  return out;
}

/** The naive rule: TF-IDF cosine over the whole text (frontmatter included) ≥ 0.8. */
function naivePairs(catalog: NoteCatalog, paths: string[]): string[] {
  const whole = new NoteCatalog(paths.map((p) => catalogNote(p, `---\ntitle: x\n---\n${catalog.get(p)!.text}`)));
  const v = new LexicalVectors(whole, paths);
  const rows = paths.filter((p) => v.vector(p));
  const dim = 384;
  const data = new Float32Array(rows.length * dim);
  rows.forEach((p, i) => data.set(v.vector(p)!, i * dim));
  const m = { data, dim, count: rows.length };
  const out: string[] = [];
  if (rows.length < 2000) {
    for (let a = 0; a < rows.length; a++) for (let b = a + 1; b < rows.length; b++) if (cosine(m, a, b) >= 0.8) out.push(keyOf('merge', [rows[a], rows[b]]));
  } else {
    for (const p of neighbourJoin(m, 8, 0.8).pairs) out.push(keyOf('merge', [rows[p.a], rows[p.b]]));
  }
  return out;
}

const WORDS: Array<[RegExp, string]> = [
  [/\bis\b/, 'is basically'],
  [/\bthe\b/, 'this'],
  [/\band\b/, 'as well as'],
  [/\buse\b/i, 'make use of'],
  [/\bcan\b/, 'is able to'],
];

/** A realistic second copy: new title, one paragraph reworded (sentences swapped, words changed), a section added. */
function plantDuplicate(text: string, rand: () => number): string {
  const m = /^---\n[\s\S]*?\n---\n/.exec(text);
  const head = m ? m[0] : '';
  const body = text.slice(head.length);
  const paras = body.split(/\n{2,}/);
  // A paragraph of prose: no code, table, list or heading inside it (rotating those would break the note, not reword it).
  const prose = paras.map((p, i) => [p, i] as const).filter(([p]) => p.length > 80 && !/(^|\n)\s*(#|```|~~~|\||- |\* |> |\d+\. )/.test(p));
  if (prose.length) {
    const [p, i] = prose[Math.floor(rand() * prose.length)];
    let s = p.split(/(?<=[.!?])\s+/);
    if (s.length > 1) s = [s[s.length - 1], ...s.slice(0, -1)];
    let r = s.join(' ');
    for (const [re, w] of WORDS) r = r.replace(re, w);
    paras[i] = r;
  }
  paras.push('## Follow-up\n\nRevisit this later and add the examples from the last session; one of them did not hold up.');
  return `${head}${paras.join('\n\n')}`;
}

/**
 * Two notes from one skeleton with different subjects, as a template makes them: the skeleton's frontmatter, headings
 * and link lines stay; its prose lines become a few short sentences taken from a different note for each sibling.
 */
function plantSiblings(skeleton: string, fillA: string, fillB: string): [string, string] {
  const fill = (filler: string): string => {
    const said = filler
      .replace(/^---\n[\s\S]*?\n---\n/, '')
      .split(/(?<=[.!?])\s+|\n+/)
      .filter((x) => x.length > 30 && x.length < 200 && !/^(#|```|\||!\[)/.test(x));
    let k = 0;
    const m = /^---\n[\s\S]*?\n---\n/.exec(skeleton);
    const head = (m ? m[0] : '').replace(/\{\{[^}]*\}\}/g, '2026-11-20');
    const lines = skeleton.slice(head.length ? m![0].length : 0).split('\n').flatMap((line) => {
      if (line.trim() === '' || /^#{1,6} /.test(line) || /^\s*([-*] )?!?\[\[[^\]]+\]\]\s*$/.test(line)) return [line];
      return k < 3 ? [said[k++] ?? ''] : [];
    });
    while (k < 2 && said[k]) lines.push(said[k++]);
    return `${head}${lines.join('\n')}\n`;
  };
  return [fill(fillA), fill(fillB)];
}

async function plan(catalog: NoteCatalog): Promise<Proposal[]> {
  const settings = curateSettings();
  const vectors = new LexicalVectors(catalog, curatable(catalog, settings));
  return (await planRestructure(catalog, settings, { vectors }, null, Date.parse('2026-11-26T12:00:00Z'))).proposals;
}

function describe(p: Proposal, catalog: NoteCatalog): string {
  const lines = [`## ${p.kind}: ${p.sources.map((s) => s.path).join(' + ')}`, '', `${p.title}`, `why: ${p.reason}`, ''];
  for (const s of p.sources) {
    const n = catalog.get(s.path);
    lines.push(`### ${s.path}`, '```', (n?.text ?? '').slice(0, 1500), '```', '');
  }
  return lines.join('\n');
}

export async function run(): Promise<void> {
  if (!fs.existsSync(vaultsDir)) {
    console.log(`  skipped: ${vaultsDir} not found (../shared/corpus absent)`);
    return;
  }
  fs.mkdirSync(outDir, { recursive: true });
  const totals = { planted: 0, found: 0, siblings: 0, siblingsProposed: 0, repeats: 0, merges: 0 };
  for (const name of VAULTS) {
    const dir = path.join(vaultsDir, name);
    if (!fs.existsSync(dir)) {
      console.log(`  ${name}: skipped (not in the corpus)`);
      continue;
    }
    const judged = loadJudged(name);
    const base = await loadCatalog(new NodeVault(dir));
    let t = performance.now();
    const proposals = await plan(base);
    const took = performance.now() - t;
    fs.writeFileSync(path.join(outDir, `${name}.md`), proposals.map((p) => describe(p, base)).join('\n'));
    const keys = proposals.map(proposalKey);
    const kinds = ['merge', 'hub', 'split'].map((k) => `${proposals.filter((p) => p.kind === k).length} ${k}`).join(', ');
    console.log(`  ${name} (${base.notes.size} notes): Engram ${proposals.length} proposals (${kinds}) in ${took.toFixed(0)} ms; precision ${precision(keys, judged)}`);
    const paths = curatable(base, curateSettings());
    const naive = naivePairs(base, paths);
    console.log(`    naive rule (TF-IDF cosine on whole text ≥ 0.8): ${naive.length} merges; precision ${precision(naive, judged)}`);
    fs.writeFileSync(path.join(outDir, `${name}.naive.md`), naive.slice(0, 200).map((k) => k.split('\t')[1]).join('\n'));
    // Recall on real notes: the duplicates a reader found (judged-right merges, and `duplicate` lines for pairs read
    // in the vault and never proposed), proposed together now?
    const real = [...judged].filter(([k, v]) => v.right && /^(merge|duplicate)\t/.test(k)).map(([k]) => k.split('\t')[1].split(' + '));
    const inPlan = (ps: string[]): boolean => proposals.some((p) => p.kind === 'merge' && ps.every((x) => p.sources.some((s) => s.path === x)));
    const foundReal = real.filter(inPlan);
    console.log(`    duplicates a reader found in the vault: ${foundReal.length}/${real.length} proposed${real.length > foundReal.length ? ` (missed: ${real.filter((x) => !inPlan(x)).slice(0, 3).map((x) => x.join(' + ')).join('; ')})` : ''}`);
    const wrong = keys.filter((k) => judged.get(k)?.right === false);
    for (const k of wrong.slice(0, 4)) console.log(`    wrong: ${k.replace('\t', ' ')} (${judged.get(k)!.why})`);

    // (d) repeated sentences in merged notes.
    let repeats = 0;
    let merges = 0;
    for (const p of proposals.filter((x) => x.kind === 'merge')) {
      merges++;
      const r = repeatedSentences(p.writes[0].text, p.sources.map((s) => base.get(s.path)!.text));
      if (r.length) {
        repeats++;
        if (repeats <= 2) console.log(`    repeated in ${p.writes[0].path}: "${r[0].slice(0, 80)}"`);
      }
    }

    // (b) planted duplicates and (c) template siblings, in a copy of the vault (in memory; ../shared is never written).
    const rand = rng(7);
    const prose = paths.filter((p) => {
      const n = base.get(p)!;
      return n.body.length > 600 && n.body.length < 20_000 && n.body.split(/\n{2,}/).some((x) => x.length > 80 && !/^[#|`>-]/.test(x));
    });
    const pick = (k: number): string[] => {
      const out = new Set<string>();
      while (out.size < Math.min(k, prose.length)) out.add(prose[Math.floor(rand() * prose.length)]);
      return [...out];
    };
    const originals = pick(12);
    const planted: Array<[string, string]> = [];
    const extra = new Map<string, string>();
    for (const o of originals) {
      const title = path.basename(o, '.md');
      const copy = path.join(path.dirname(o), `${title} (notes)${'.md'}`).replace(/^\.\//, '');
      extra.set(copy, plantDuplicate(base.get(o)!.text, rand));
      planted.push([o, copy]);
    }
    // The same subject under a handle and a name: the original gains a handle, the copy is filed under it.
    const override = new Map<string, string>();
    const plantedKind = new Map<string, string>();
    for (const o of pick(16).filter((x) => !originals.includes(x)).slice(0, 3)) {
      const words = path.basename(o, '.md').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
      const handle = `${words.slice(0, -1).map((w) => w[0]).join('')}${words[words.length - 1] ?? 'x'}`;
      const text = base.get(o)!.text;
      override.set(o, /^---\n/.test(text) ? text.replace(/^---\n/, `---\nhandle: ${handle}\n`) : `---\nhandle: ${handle}\n---\n${text}`);
      const copy = path.join(path.dirname(o), `${handle}.md`).replace(/^\.\//, '');
      extra.set(copy, plantDuplicate(text, rand));
      planted.push([o, copy]);
      plantedKind.set(copy, 'handle');
    }
    // A second note under another name that says it duplicates the first, with half of its text.
    for (const [i, o] of pick(24).filter((x) => !originals.includes(x) && !override.has(x)).slice(0, 3).entries()) {
      const text = plantDuplicate(base.get(o)!.text, rand).replace(/^---\n[\s\S]*?\n---\n/, '');
      const paras = text.split(/\n{2,}/);
      const copy = path.join(path.dirname(o), `Untitled ${i + 1}.md`).replace(/^\.\//, '');
      extra.set(copy, `Duplicate of [[${path.basename(o, '.md')}]], merge it there.\n\n${paras.slice(0, Math.max(1, Math.ceil(paras.length / 2))).join('\n\n')}\n`);
      planted.push([o, copy]);
      plantedKind.set(copy, 'says');
    }
    // Skeletons: the vault's own templates when it has them, else notes with headings.
    const templates = [...base.notes.keys()].filter((p) => /(^|\/)_?templates?\//i.test(p));
    const skeletons = templates.length ? templates : paths.filter((p) => (base.get(p)!.body.match(/^#{1,3} /gm) ?? []).length >= 2 && base.get(p)!.body.length > 400);
    const siblings: Array<[string, string]> = [];
    for (let i = 0; i < 6 && skeletons.length; i++) {
      const sk = skeletons[Math.floor(rand() * skeletons.length)];
      const [fa, fb] = pick(2);
      if (!fa || !fb) break;
      const [a, b] = plantSiblings(base.get(sk)!.text, base.get(fa)!.text, base.get(fb)!.text);
      const folder = templates.length ? 'Planted/' : path.dirname(sk) === '.' ? '' : `${path.dirname(sk)}/`;
      const pa = `${folder}Planted sibling ${i} ${path.basename(fa, '.md')}.md`;
      const pb = `${folder}Planted sibling ${i} ${path.basename(fb, '.md')}.md`;
      extra.set(pa, a);
      extra.set(pb, b);
      siblings.push([pa, pb]);
    }
    const copy = new NoteCatalog([...[...base.notes.values()].map((n) => catalogNote(n.path, override.get(n.path) ?? n.text)), ...[...extra].map(([p, x]) => catalogNote(p, x))]);
    t = performance.now();
    const plantedPlan = await plan(copy);
    const together = (a: string, b: string): boolean => plantedPlan.some((p) => p.kind !== 'split' && p.sources.some((s) => s.path === a) && p.sources.some((s) => s.path === b));
    const found = planted.filter(([a, b]) => together(a, b)).length;
    const sib = siblings.filter(([a, b]) => together(a, b)).length;
    const of = (k: string): string => {
      const xs = planted.filter(([, c]) => (plantedKind.get(c) ?? 'copy') === k);
      return `${xs.filter(([a, b]) => together(a, b)).length}/${xs.length}`;
    };
    console.log(
      `    planted duplicates found ${found}/${planted.length} (renamed copies ${of('copy')}, under a handle ${of('handle')}, saying they duplicate ${of('says')}); planted template siblings proposed ${sib}/${siblings.length}; merged notes repeating a sentence ${repeats}/${merges}`,
    );
    for (const [a, b] of planted.filter(([x, y]) => !together(x, y)).slice(0, 3)) console.log(`    missed: ${a} ↔ ${b}`);
    Object.assign(totals, {
      planted: totals.planted + planted.length,
      found: totals.found + found,
      siblings: totals.siblings + siblings.length,
      siblingsProposed: totals.siblingsProposed + sib,
      repeats: totals.repeats + repeats,
      merges: totals.merges + merges,
    });
  }
  console.log(
    `  all vaults: planted duplicates found ${totals.found}/${totals.planted} (${(totals.found / Math.max(1, totals.planted)).toFixed(2)}, goal ≥ 0.8); template siblings proposed ${totals.siblingsProposed}/${totals.siblings} (goal 0); merges repeating a sentence ${totals.repeats}/${totals.merges} (goal 0); proposals written to ${path.relative(root, outDir)}/`,
  );
}
