// What the engine answers from its notes for people and agents: recall (MCP), read (a note or one passage), related
// notes (the pane), the flagged notes and the marks on a search's hits. Each reads the engine through `Reader`.
import { EngramError } from '../errors.js';
import type { VaultPort } from '../ports.js';
import type { SearchHit, SearchOptions } from '../index/types.js';
import { SEARCH_FLOOR } from '../index/search.js';
import type { LookUp } from '../note/lookup.js';
import { parseNote } from '../note/frontmatter.js';
import type { NoteMeta } from '../note/meta.js';
import { compactList, passagesUnder } from '../recall/passages.js';
import { gateTokenizer, type TermStats } from '../recall/term-stats.js';
import { renderItem } from '../recall/render.js';
import { findDirectives, withholdDirectives } from '../recall/directives.js';
import { flaggedNote, heldBack, markHit, type FlaggedNote, type MarkedHit, type Vetting } from '../recall/vet.js';
import { fenceRecalled } from '../transcript/fence.js';
import type { RecallResult } from '../protocol/messages.js';
import type { TimeSlicer } from '../time-slice.js';
import type { EngineIndex, QueryAnswer } from './index-port.js';
import type { EngineConfig } from './options.js';

/** What these answers read of the engine. */
export interface Reader {
  readonly config: EngineConfig;
  readonly stats: TermStats;
  readonly vault: VaultPort;
  index(): EngineIndex;
  meta(path: string): NoteMeta | undefined;
  notes(): Iterable<NoteMeta>;
  lookUp(ref: string): LookUp;
  closestTitles(ref: string): string[];
  hasProject(project: string): boolean;
  query(query: string, opts: SearchOptions): Promise<QueryAnswer>;
  search(query: string, opts: SearchOptions): Promise<SearchHit[]>;
  vet(path: string): Promise<Vetting | null>;
  privateZone(path: string): string | undefined;
  noteRecalled(paths: string[]): void;
  slicer(): TimeSlicer;
  whenReady(): Promise<void>;
}

/** The one note `ref` names, or a not-found / ambiguous error that lists what the user may have meant. */
export function noteFor(e: Reader, ref: string, verb: string): { path: string; exact: boolean } {
  const r = e.lookUp(ref);
  if (r.path) return { path: r.path, exact: r.exact };
  if (r.candidates.length > 1) {
    throw new EngramError('conflict', `"${ref}" matches ${r.candidates.length} notes: ${r.candidates.slice(0, 10).join(', ')}${r.candidates.length > 10 ? ', …' : ''}`, `${verb} one of them by its vault path`);
  }
  const close = e.closestTitles(ref);
  throw new EngramError('not-found', `no note matches "${ref}"`, close.length ? `closest: ${close.join(', ')}` : 'check the title, or give the vault path');
}

/**
 * The notes closest to `path` and the notes that cite it (the "related to this note" pane). Closest goes through the
 * one search road: the note's rarest shared words for BM25 and, where the index has embeddings, the note's own vector
 * for meaning (an index that does not take `queryVector` embeds the words instead). Citing: notes linking to it,
 * Engram's own notes first.
 */
export async function relatedNotes(e: Reader, path: string, limit: number): Promise<{ similar: SearchHit[]; citing: string[] }> {
  const meta = e.meta(path);
  if (!meta) throw new EngramError('not-found', `no indexed note at ${path}`, 'give the vault path of a Markdown note outside the ignored folders');
  const body = parseNote((await e.vault.read(path)).text).body;
  const said = gateTokenizer.wordsByTerm(`${meta.title}\n${meta.summary ?? ''}\n${meta.tags.join(' ')}\n${body}`);
  // Words another note shares (document frequency of two or more), rarest first: what makes this note itself.
  const terms = (e.stats.termsOf(path) ?? []).filter((t) => said.has(t) && e.stats.docFreq(t) >= 2);
  terms.sort((a, b) => e.stats.idf(b) - e.stats.idf(a) || (a < b ? -1 : 1));
  const words = terms.slice(0, 12).map((t) => said.get(t)!.toLowerCase()).join(' ');
  const queryVector = e.index().noteVectors?.()?.vector(path);
  const opts: SearchOptions & { queryVector?: Float32Array } = { limit: limit + 1, timePhrases: false, relativeCut: false, ...(queryVector ? { queryVector } : {}) };
  const similar = words || queryVector ? (await e.query(words || meta.title, opts)).hits.filter((h) => h.path !== path).slice(0, limit) : [];
  const out = new Set([`${e.config.folders.archive}/`, `${e.config.folders.log}/`]);
  const engram = (p: string): number => (e.meta(p)?.engramId ?? e.meta(p)?.engramSource ? 0 : 1);
  const citing = (e.index().linksTo?.(path) ?? []).filter((p) => ![...out].some((f) => p.startsWith(f)));
  citing.sort((a, b) => engram(a) - engram(b) || (a < b ? -1 : a > b ? 1 : 0));
  return { similar, citing };
}

/** The answer's hits marked for people: outside text, text addressed to an AI (`engram search`, the Search pane). */
export async function markAnswer(e: Reader, answer: QueryAnswer): Promise<QueryAnswer> {
  const hits: MarkedHit[] = [];
  for (const h of answer.hits) {
    const v = await e.vet(h.path);
    hits.push(v ? markHit(h, v) : h);
  }
  return { ...answer, hits };
}

/**
 * Every note holding text addressed to an AI (the user's own raised notes aside), for the review pane, `engram
 * flagged` and the activity record; read once per file version (vet's cache).
 */
export async function flaggedNotes(e: Reader): Promise<FlaggedNote[]> {
  await e.whenReady();
  const out: FlaggedNote[] = [];
  const slicer = e.slicer();
  const skip = [`${e.config.folders.archive}/`, `${e.config.folders.log}/`];
  for (const meta of [...e.notes()].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    if (skip.some((f) => meta.path.startsWith(f))) continue;
    if (slicer.due()) await slicer.yield();
    const v = await e.vet(meta.path);
    const f = v && flaggedNote(meta.path, meta.title, v);
    if (f) out.push(f);
  }
  return out;
}

/** Outside text is marked as such; words addressed to an AI are withheld, in the body and in the snippet alike. */
async function vetted(e: Reader, out: RecallResult['hits']): Promise<void> {
  for (const [i, h] of out.entries()) {
    const v = await e.vet(h.path);
    if (!v) continue;
    out[i] = markHit(h, v);
    if (!v.directives.length || v.trust.byUser) continue;
    const m = out[i];
    if (m.body) m.body = withholdDirectives(m.body, m.path);
    // A snippet is cut from its passage: a flagged passage is withheld whole, whatever part of it the cut kept.
    m.snippet = heldBack(v, m.heading ?? '') ? `[text addressed to AI assistants withheld: ${m.path}${m.heading ? `#${m.heading}` : ''}]` : withholdDirectives(m.snippet, m.path);
    if (m.summary) m.summary = withholdDirectives(m.summary, m.path);
  }
}

/** Recall's line for hits under the floor (SEARCH_FLOOR): what the search's NO_CLOSE_MATCH notice says, for an agent. */
export const NO_CLOSE_PREFACE = 'No close match: the nearest notes share little of the query.\n';

/** Recall's answer when the vault has nothing for the query (another store's notes may follow it). */
export const NO_NOTES = 'No notes matched.';

export async function recallNotes(e: Reader, query: string, opts: SearchOptions & { full?: number }): Promise<RecallResult> {
  // What an agent asks for: private notes are not among the answers (the person's own search still finds them).
  const hidden = (path: string): boolean => e.privateZone(path) !== undefined;
  const hits = await e.search(query, { limit: 8, ...opts, hidden });
  const full = opts.full ?? 3;
  const out: RecallResult['hits'] = [];
  for (const [i, hit] of hits.entries()) {
    if (i < full) {
      try {
        out.push({ ...hit, body: parseNote((await e.vault.read(hit.path)).text).body.slice(0, 6000) });
        continue;
      } catch {
        // fall through to the snippet
      }
    }
    out.push(hit);
  }
  await vetted(e, out);
  const lines = full === 0 ? compactList(out) : out.map((h) => `${renderItem({ ...h, why: h.why }, 300)}${h.body ? `\n\n${h.body.trim()}\n` : ''}`);
  e.noteRecalled(out.map((h) => h.path));
  // A project with no notes of its own gets general notes at most, and is told so (never other projects' notes).
  const unknown = (opts.projects ?? []).filter((p) => !e.hasProject(p));
  let preface = unknown.length ? `No notes are filed under project ${unknown.map((p) => `"${p}"`).join(', ')} yet${out.length ? '; these are general notes' : ''}. Search every project with all_projects.\n` : '';
  // The floor: weak hits are shown, but said to be weak first (the best passage shares little of the query).
  if (out.length && (out[0].coverage ?? 1) < SEARCH_FLOOR && !out[0].why.some((w) => w.startsWith('meaning'))) preface += NO_CLOSE_PREFACE;
  const head = full === 0 ? `Notes from the user's vault (${out.length}; read one with the read tool, by path, or path#heading for the passage):` : `Notes from the user's vault (${out.length}):`;
  const text = out.length ? `${preface}${fenceRecalled(`${head}\n${lines.join('\n')}`)}` : `${preface}${NO_NOTES}`;
  return { hits: out, text, mode: e.index().mode };
}

/**
 * A note in full, or one passage of it: `path#Heading` (or `#Parent > Heading`, as recall lists it) returns the
 * passages under that heading, with the heading path; a heading the note lacks is a not-found error naming those it has.
 */
export async function readNote(e: Reader, ref: string): Promise<{ path: string; title: string; text: string; heading?: string }> {
  const { path } = noteFor(e, ref, 'read');
  const zone = e.privateZone(path);
  if (zone) throw new EngramError('refused', `${path} is in a ${zone}: it is not given to agents`, 'the user can read it in Obsidian');
  const file = await e.vault.read(path);
  const title = e.meta(path)?.title ?? path;
  const hash = ref.replace(/\]\]$/, '').split('|')[0].indexOf('#');
  const wanted = hash >= 0 ? ref.replace(/\]\]$/, '').split('|')[0].slice(hash + 1).trim() : '';
  // Words addressed to an AI are withheld from what an agent reads, as from recall, unless the user raised the note.
  const byUser = (await e.vet(path))?.trust.byUser === true;
  const directives = byUser ? [] : findDirectives(file.text);
  if (!wanted) return { path, title, text: directives.length ? withholdDirectives(file.text, path, directives) : file.text };
  const found = passagesUnder(parseNote(file.text).body, wanted);
  if (!found.text) {
    throw new EngramError('not-found', `no heading "${wanted}" in ${path}`, found.headings.length ? `headings: ${found.headings.slice(0, 12).join('; ')}` : 'the note has no headings: read it whole');
  }
  return { path, title, text: byUser ? found.text : withholdDirectives(found.text, path), heading: found.heading };
}
