// Working-memory review: which notes are due, which belong together, and what to do with each group
// (promote to a durable note, extend the review date, delete), as proposals that change nothing until applied.
import { stableId } from '../hash';
import { parseModelJson } from '../extract/repair-json';
import type { LlmBackend } from '../extract/backends/types';
import type { Yield } from '../ports';
import { ENGRAM_PROMPT_MARKER } from '../transcript/fence';
import { DEFAULT_TYPES, type NoteMeta } from '../note/meta';
import { planLinkRewrites } from './apply';
import type { CatalogNote, NoteCatalog } from './catalog';
import { notesTime } from './notes-time';
import { curatable, pluginOwned, type NoteVectors } from './merge-candidates';
import { isGenerated, isTemplate } from './evidence';
import { inFolder, type CurateSettings } from './settings';
import { renderNote, wikilink } from './note-text';
import { fileStemFromTitle, uniqueNotePath } from '../note/filename';
import { makeProposal, type Proposal, type ProposalDraft, type ProposalStore } from './proposals';
import { editFrontmatter } from '../note/frontmatter-edit';
import { routeFolder } from '../note/route';
import { sourceCallouts } from '../note/provenance';
import { addDays, isoDate } from '../day';
import systemTemplate from './prompts/review-system.md';
import userTemplate from './prompts/review-user.md';

export const MAX_GROUP = 5;
/** Related due notes: vectors at least this close (or a shared tag or link) put two notes in one group. */
export const GROUP_SIMILARITY = 0.75;
const MAX_NOTE_CHARS = 4000;

export interface DueNote {
  path: string;
  reviewAfter: string;
}

/** Working-memory notes due on or before today plus `horizonDays`; locked notes are never due. */
export function dueNotes(catalog: NoteCatalog, settings: CurateSettings, today: string, horizonDays: number): DueNote[] {
  const until = addDays(today, horizonDays);
  const out: DueNote[] = [];
  for (const path of curatable(catalog, settings)) {
    const r = catalog.get(path)!.meta!.reviewAfter;
    if (r !== undefined && r <= until) out.push({ path, reviewAfter: r });
  }
  return out.sort((a, b) => (a.reviewAfter < b.reviewAfter ? -1 : a.reviewAfter > b.reviewAfter ? 1 : a.path < b.path ? -1 : 1));
}

/**
 * Due notes from metadata the host already holds (the engine's, kept current by its watcher), so a plan parses no
 * note's frontmatter to find them; the same rules as `dueNotes` that metadata can tell (locked, archive, log,
 * templates). The catalog then confirms each one (`confirmDue`).
 */
export function dueFromMetas(metas: Iterable<NoteMeta>, settings: CurateSettings, today: string, horizonDays: number): DueNote[] {
  const until = addDays(today, horizonDays);
  const out: DueNote[] = [];
  for (const m of metas) {
    const r = m.reviewAfter;
    if (r === undefined || r > until || m.locked) continue;
    if (inFolder(m.path, settings.folders.archive) || inFolder(m.path, settings.folders.log) || isTemplate(m.path, settings.templatesFolders)) continue;
    out.push({ path: m.path, reviewAfter: r });
  }
  return out.sort((a, b) => (a.reviewAfter < b.reviewAfter ? -1 : a.reviewAfter > b.reviewAfter ? 1 : a.path < b.path ? -1 : 1));
}

/** The due notes the vault as read agrees with: still there, still curatable, still due (their own frontmatter). */
function confirmDue(catalog: NoteCatalog, settings: CurateSettings, due: DueNote[], today: string, horizonDays: number): DueNote[] {
  const until = addDays(today, horizonDays);
  const out: DueNote[] = [];
  for (const d of due) {
    const n = catalog.get(d.path);
    const r = n?.meta?.reviewAfter;
    if (!n || !n.meta || n.meta.locked || r === undefined || r > until || pluginOwned(n.path, n.text) || isGenerated(n.text)) continue;
    out.push({ path: d.path, reviewAfter: r });
  }
  return out;
}

function related(catalog: NoteCatalog, a: string, b: string, vectors?: NoteVectors): boolean {
  const na = catalog.get(a)!;
  const nb = catalog.get(b)!;
  if (na.tags.some((t) => nb.tags.includes(t))) return true;
  const oa = catalog.outgoing(a);
  const ob = catalog.outgoing(b);
  if (oa.has(b) || ob.has(a)) return true;
  for (const t of oa) if (ob.has(t)) return true;
  const va = vectors?.vector(a);
  const vb = vectors?.vector(b);
  if (va && vb && va.length === vb.length) {
    let s = 0;
    for (let i = 0; i < va.length; i++) s += va[i] * vb[i];
    if (s >= GROUP_SIMILARITY) return true;
  }
  return false;
}

/** Groups related due notes (greedy, in due order, at most MAX_GROUP per group); the project must match. */
export function groupDue(catalog: NoteCatalog, due: DueNote[], vectors?: NoteVectors): string[][] {
  const groups: string[][] = [];
  for (const d of due) {
    const project = catalog.get(d.path)!.meta!.project;
    const g = groups.find((x) => x.length < MAX_GROUP && catalog.get(x[0])!.meta!.project === project && x.some((m) => related(catalog, m, d.path, vectors)));
    if (g) g.push(d.path);
    else groups.push([d.path]);
  }
  return groups;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, key: string) => values[key] ?? m);
}

function frame(n: CatalogNote): string {
  const m = n.meta!;
  const body = n.body.length > MAX_NOTE_CHARS ? `${n.body.slice(0, MAX_NOTE_CHARS)}\n[… ${n.body.length - MAX_NOTE_CHARS} characters omitted …]` : n.body;
  const head = [`path: ${n.path}`, `title: ${m.title}`, m.type ? `type: ${m.type}` : '', m.tags.length ? `tags: ${m.tags.join(', ')}` : '', `review_after: ${m.reviewAfter ?? ''}`, m.summary ? `summary: ${m.summary}` : '']
    .filter(Boolean)
    .join('\n');
  return `<note>\n${head}\n\n${body.replace(/<\/?notes?>/gi, (x) => x.replace('<', '‹'))}\n</note>`;
}

export function buildReviewRequest(catalog: NoteCatalog, group: string[], today: string, types: readonly string[], preferences = '') {
  const project = catalog.get(group[0])!.meta!.project ?? '(none)';
  return {
    system: fill(systemTemplate, { marker: ENGRAM_PROMPT_MARKER, types: types.join(', ') }),
    user: fill(userTemplate, { today, project, preferences: preferences.trim() ? `\n<preferences>\n${preferences.trim()}\n</preferences>` : '(none)', count: String(group.length), notes: group.map((p) => frame(catalog.get(p)!)).join('\n\n') }),
    json: true,
    maxTokens: 4000,
  };
}

export interface ReviewDecision {
  action: 'promote' | 'extend' | 'delete';
  notes: string[];
  reason: string;
  weeks?: number;
  note?: { title: string; summary?: string; type?: string; tags: string[]; links: string[]; body: string };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
}

/** Validates the model's decisions against the group: unknown notes dropped, each note decided once. */
export function parseDecisions(reply: string, group: string[], types: readonly string[]): { decisions: ReviewDecision[]; problems: string[] } {
  const problems: string[] = [];
  let value: unknown;
  try {
    value = parseModelJson(reply).value;
  } catch (e) {
    return { decisions: [], problems: [(e as Error).message] };
  }
  const raw = (value as { decisions?: unknown })?.decisions;
  if (!Array.isArray(raw)) return { decisions: [], problems: ['reply has no "decisions" list'] };
  // Models sometimes answer with titles or links instead of paths: accept all three.
  const byLower = new Map<string, string>();
  for (const p of group) {
    const title = p.slice(p.lastIndexOf('/') + 1).replace(/\.md$/i, '').toLowerCase();
    for (const k of [p.toLowerCase(), title, `[[${title}]]`]) if (!byLower.has(k)) byLower.set(k, p);
  }
  const taken = new Set<string>();
  const decisions: ReviewDecision[] = [];
  for (const d of raw as Array<Record<string, unknown>>) {
    const action = d?.action;
    if (action !== 'promote' && action !== 'extend' && action !== 'delete') {
      problems.push(`unknown action ${JSON.stringify(action)}`);
      continue;
    }
    const notes = strings(d.notes).map((p) => byLower.get(p.toLowerCase()) ?? byLower.get(`${p.toLowerCase()}.md`)).filter((p): p is string => p !== undefined && !taken.has(p));
    if (notes.length === 0) {
      problems.push(`${action}: names no note of the group`);
      continue;
    }
    const reason = typeof d.reason === 'string' ? d.reason.trim() : '';
    if (action === 'promote') {
      const n = d.note as Record<string, unknown> | undefined;
      const title = typeof n?.title === 'string' ? fileStemFromTitle(n.title) : '';
      const body = typeof n?.body === 'string' ? n.body.trim() : '';
      if (!title || !body || title === 'Untitled') {
        problems.push('promote without a title and body');
        continue;
      }
      const type = typeof n?.type === 'string' && types.includes(n.type) ? n.type : undefined;
      notes.forEach((p) => taken.add(p));
      decisions.push({ action, notes, reason, note: { title, summary: typeof n?.summary === 'string' ? n.summary.trim() : undefined, type, tags: strings(n?.tags).map((t) => t.replace(/^#/, '')), links: strings(n?.links), body } });
      continue;
    }
    const weeks = typeof d.weeks === 'number' && Number.isFinite(d.weeks) ? Math.min(12, Math.max(1, Math.round(d.weeks))) : undefined;
    notes.forEach((p) => taken.add(p));
    decisions.push({ action, notes, reason, weeks });
  }
  return { decisions, problems };
}

/** Where the durable note goes: the project's folder for project knowledge, else the inbox (the foundation's routing). */
function durableFolder(settings: CurateSettings, scope: 'project' | 'general' | undefined, project: string | undefined): string {
  return routeFolder({ scope: scope ?? (project ? 'project' : undefined), project }, settings.folders);
}

export function decisionDraft(catalog: NoteCatalog, settings: CurateSettings, d: ReviewDecision, today: string, backend: string): ProposalDraft | null {
  const sources = d.notes.map((p) => ({ path: p, hash: catalog.hash(p) }));
  const names = d.notes.map(wikilink).join(', ');
  if (d.action === 'delete') {
    const removed = new Set(d.notes);
    const linking = new Set(d.notes.flatMap((p) => [...catalog.backlinks(p)]).filter((p) => !removed.has(p)));
    const reason = linking.size ? `${d.reason} (${linking.size} note${linking.size === 1 ? ' links' : 's link'} here; those links will point at a note in the trash)` : d.reason;
    return { family: 'review', kind: 'delete', title: `delete ${names}`, reason, sources, writes: [], trash: d.notes, moves: [], redirect: null, linkRewrites: [], backend };
  }
  if (d.action === 'extend') {
    const weeks = d.weeks ?? settings.extendWeeks;
    const writes = [];
    const dates = new Set<string>();
    for (const p of d.notes) {
      const current = catalog.get(p)!.meta!.reviewAfter ?? today;
      const next = addDays(current > today ? current : today, weeks * 7);
      dates.add(next);
      let text: string;
      try {
        text = editFrontmatter(catalog.get(p)!.text, { set: { review_after: next } }, p).text;
      } catch {
        return null;
      }
      writes.push({ path: p, text, replaces: true });
    }
    return { family: 'review', kind: 'extend', title: `extend ${names} by ${weeks} week${weeks === 1 ? '' : 's'}${dates.size === 1 ? ` (review_after ${[...dates][0]})` : ''}`, reason: d.reason, sources, writes, trash: [], moves: [], redirect: null, linkRewrites: [], backend };
  }
  const n = d.note!;
  const first = catalog.get(d.notes[0])!.meta!;
  const path = uniqueNotePath(durableFolder(settings, first.scope, first.project), n.title, (x) => catalog.resolver.has(x));
  const removed = new Set(d.notes);
  const links = n.links
    .map((l) => catalog.resolver.resolve(l.replace(/^\[\[|\]\]$/g, '').split('|')[0], path))
    .filter((p): p is string => p !== null && !removed.has(p));
  // Dated by the notes it promotes, not the clock (the same promotion on two devices writes the same bytes).
  const created = notesTime(catalog, d.notes)?.stamp;
  const tags = [...new Set([...n.tags, ...d.notes.flatMap((p) => catalog.get(p)!.meta!.tags)])];
  // Provenance survives the promotion: the source-quote callouts of the notes it came from, after the new body.
  const callouts = d.notes.flatMap((p) => sourceCallouts(catalog.get(p)!.body)).filter((c) => !n.body.includes(c));
  const body = [n.body.replace(/\s+$/, ''), ...new Set(callouts)].join('\n\n');
  const text = renderNote(
    {
      type: n.type ?? first.type ?? 'insight',
      scope: first.scope,
      project: first.project,
      summary: n.summary,
      tags,
      related: [...new Set(links.map(wikilink))],
      created,
      updated: created,
      engram_id: stableId(['review', ...sources.map((s) => s.hash)]),
      engram_source: 'review',
      engram_session: first.engramSession,
      engram_agent: first.engramAgent,
    },
    body,
  );
  return {
    family: 'review',
    kind: 'promote',
    title: `promote ${names} to ${wikilink(path)}`,
    reason: d.reason,
    sources,
    writes: [{ path, text }],
    trash: d.notes,
    moves: [],
    redirect: { kind: 'move', moves: d.notes.map((p) => [p, path] as [string, string]) },
    linkRewrites: [],
    backend,
  };
}

export interface ReviewPlan {
  due: DueNote[];
  groups: string[][];
  proposals: Proposal[];
  /** What went wrong with the model's replies (the affected notes fell back to "extend"). */
  problems: string[];
}

/** Due notes, grouped, with one proposal per decision; `rules` (or no backend) proposes extend only. */
export async function planReview(
  catalog: NoteCatalog,
  settings: CurateSettings,
  opts: {
    backend?: LlmBackend;
    vectors?: NoteVectors;
    store?: ProposalStore | null;
    now: number;
    horizonDays: number;
    types?: readonly string[];
    preferences?: string;
    yieldNow?: Yield;
    /** Due notes found from the host's metadata (`dueFromMetas`): only these notes' frontmatter is read. */
    due?: DueNote[];
    /** Why a note is private (note/private-zone.ts): never sent to the model; the rules extend it. */
    isPrivate?: (path: string) => string | undefined;
  },
): Promise<ReviewPlan> {
  const today = isoDate(opts.now);
  const due = opts.due ? confirmDue(catalog, settings, opts.due, today, opts.horizonDays) : dueNotes(catalog, settings, today, opts.horizonDays);
  const groups = groupDue(catalog, due, opts.vectors);
  const types = opts.types ?? DEFAULT_TYPES;
  const backendName = opts.backend?.name ?? 'rules';
  const problems: string[] = [];
  const drafts: ProposalDraft[] = [];
  for (const group of groups) {
    // Hundreds of due notes in a UI host (the plugin's review pane): give the UI a turn between groups.
    if (opts.yieldNow) await opts.yieldNow();
    let decisions: ReviewDecision[] = [];
    // Private notes never reach the model: they are extended by the rules, in a decision of their own.
    const hidden = opts.isPrivate ? group.filter((p) => opts.isPrivate!(p)) : [];
    const sent = group.filter((p) => !hidden.includes(p));
    if (hidden.length) decisions.push({ action: 'extend', notes: hidden, reason: `in a private zone (${opts.isPrivate!(hidden[0])}): never sent to a model; look again later`, weeks: settings.extendWeeks });
    if (sent.length && opts.backend && opts.backend.name !== 'rules') {
      try {
        const reply = await opts.backend.complete(buildReviewRequest(catalog, sent, today, types, opts.preferences));
        const parsed = parseDecisions(reply.text, sent, types);
        decisions = parsed.decisions;
        problems.push(...parsed.problems.map((p) => `${group.map(wikilink).join(', ')}: ${p}`));
      } catch (e) {
        problems.push(`${group.map(wikilink).join(', ')}: ${opts.backend.name} failed: ${(e as Error).message}`);
      }
    }
    const decided = new Set(decisions.flatMap((d) => d.notes));
    const rest = group.filter((p) => !decided.has(p));
    if (rest.length) decisions.push({ action: 'extend', notes: rest, reason: backendName === 'rules' ? 'rules backend: no model to judge; look again later' : 'no usable decision from the model', weeks: settings.extendWeeks });
    for (const d of decisions) {
      const draft = decisionDraft(catalog, settings, d, today, d.action === 'extend' && (rest.includes(d.notes[0]) || hidden.includes(d.notes[0])) ? 'rules' : backendName);
      if (draft) drafts.push(draft);
      else problems.push(`${d.notes.join(', ')}: frontmatter cannot be edited safely; left alone`);
    }
  }
  const proposals: Proposal[] = [];
  for (const d of drafts) {
    if (opts.yieldNow) await opts.yieldNow();
    d.linkRewrites = planLinkRewrites(catalog, d).map(({ path, edits }) => ({ path, edits }));
    const p = makeProposal(d, opts.now, settings.proposalDays);
    if (opts.store) await opts.store.save(p);
    proposals.push(p);
  }
  return { due, groups, proposals, problems };
}
