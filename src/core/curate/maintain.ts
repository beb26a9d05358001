// Maintenance: archive notes past `forget_after` (or their type's time-to-live) into the archive folder, out of
// recall; `forget` is the same move, at once; and lists for the user: stale notes (not recalled for a while),
// orphans (no links either way) and possible duplicates (never merged automatically).
import { EngramError } from '../errors';
import { sha256Hex } from '../hash';
import { applyProposal, planLinkRewrites, type ApplyResult, type CurateContext } from './apply';
import type { NoteCatalog } from './catalog';
import { curatable } from './merge-candidates';
import { wikilink } from './note-text';
import { fileNameKey, uniqueNotePath } from '../note/filename';
import { makeProposal, type Proposal, type ProposalDraft } from './proposals';
import { addDays, isoDate } from '../day';
import { lookUpNote, type NoteNames } from '../note/lookup';
import { inFolder, type CurateSettings } from './settings';
import type { RecallStats } from './stores';

function archiveDraft(catalog: NoteCatalog, settings: CurateSettings, path: string, reason: string, taken: Set<string>): ProposalDraft {
  const name = path.slice(path.lastIndexOf('/') + 1, -3);
  // Same file name in the archive, so `[[Name]]` links keep resolving without a rewrite.
  const to = uniqueNotePath(settings.folders.archive, name, (p) => catalog.resolver.has(p) || taken.has(fileNameKey(p)));
  taken.add(fileNameKey(to));
  return {
    family: 'maintain',
    kind: 'archive',
    title: `archive ${wikilink(path)}`,
    reason,
    sources: [{ path, hash: catalog.hash(path) }],
    writes: [],
    trash: [],
    moves: [[path, to]],
    redirect: { kind: 'move', moves: [[path, to]] },
    linkRewrites: [],
  };
}

function finish(catalog: NoteCatalog, settings: CurateSettings, d: ProposalDraft, now: number): Proposal {
  d.linkRewrites = planLinkRewrites(catalog, d).map(({ path, edits }) => ({ path, edits }));
  return makeProposal(d, now, settings.proposalDays);
}

/** Archive proposals for notes past `forget_after`, or older than their type's time-to-live. */
export function archiveProposals(catalog: NoteCatalog, settings: CurateSettings, now: number): Proposal[] {
  const today = isoDate(now);
  const taken = new Set<string>();
  const out: Proposal[] = [];
  for (const path of curatable(catalog, settings)) {
    const m = catalog.get(path)!.meta!;
    let reason: string | undefined;
    if (m.forgetAfter !== undefined && m.forgetAfter <= today) reason = `forget_after ${m.forgetAfter}`;
    else if (m.type && settings.ttlDays[m.type] !== undefined && m.created !== undefined) {
      const until = addDays(isoDate(m.created), settings.ttlDays[m.type]);
      if (until <= today) reason = `${m.type} notes are kept ${settings.ttlDays[m.type]} days (created ${isoDate(m.created)})`;
    }
    if (reason) out.push(finish(catalog, settings, archiveDraft(catalog, settings, path, reason, taken), now));
  }
  return out;
}

/** Finds the note a user or agent means: a vault path, or a title / link text resolved like a wikilink. */
/**
 * The note `ref` names: an exact vault path, or a title (file name or alias, case aside) that exactly one note has.
 * `exact` says whether the user gave the path itself; `candidates` lists every note an ambiguous title matches.
 */
export function findNote(catalog: NoteCatalog, ref: string): { path: string | null; exact: boolean; candidates: string[] } {
  // The engine's one resolver (src/core/note/lookup.ts), over the notes as curation read them.
  const names = {
    has: (p: string) => catalog.notes.has(p),
    *entries(): Iterable<[string, NoteNames]> {
      for (const n of catalog.notes.values()) yield [n.path, { title: n.meta?.title ?? n.path.slice(n.path.lastIndexOf('/') + 1).replace(/\.md$/i, ''), aliases: n.meta?.aliases ?? [] }];
    },
  };
  const r = lookUpNote(ref, names);
  return { path: r.path ?? null, exact: r.exact, candidates: r.candidates };
}

/**
 * `forget`: the archive move, applied at once (and logged). Refused for a locked note, a symbolic link, a title that
 * matches several notes (the candidates are listed), and a note Engram did not create unless the user (`byUser`) named
 * its exact vault path: an agent can never archive the user's own notes.
 */
export async function forgetNote(ctx: CurateContext, catalog: NoteCatalog, ref: string, now: number, opts: { byUser?: boolean } = {}): Promise<ApplyResult> {
  const found = findNote(catalog, ref);
  if (found.candidates.length > 1) {
    throw new EngramError('conflict', `"${ref}" matches ${found.candidates.length} notes: ${found.candidates.slice(0, 10).join(', ')}${found.candidates.length > 10 ? ', …' : ''}`, 'forget one of them by its vault path');
  }
  const path = found.path;
  if (path === null) throw new EngramError('not-found', `no note named ${ref} in the vault`);
  const n = catalog.get(path)!;
  if (n.meta === null) throw new EngramError('refused', `${path} has invalid frontmatter; fix it first (Engram never rewrites such notes)`);
  if (n.meta.locked) throw new EngramError('refused', `${path} is locked; curation never touches it`, 'remove `locked: true` first if you really mean it');
  if (!isEngramNote(catalog, path) && !(opts.byUser && found.exact)) {
    throw new EngramError(
      'refused',
      `${path} is not a note Engram created`,
      opts.byUser ? `to archive your own note, name its exact vault path: engram forget "${path}"` : 'only the user can archive their own notes, with `engram forget "<exact vault path>"` in a terminal',
    );
  }
  if (inFolder(path, ctx.settings.folders.archive)) throw new EngramError('refused', `${path} is already in the archive`);
  if ((await ctx.vault.read(path)).symlink) throw new EngramError('refused', `${path} is a symbolic link; Engram never moves links`, 'move or delete it by hand');
  const p = finish(catalog, ctx.settings, archiveDraft(catalog, ctx.settings, path, 'forgotten on request', new Set()), now);
  p.kind = 'archive';
  p.title = `forget ${wikilink(path)}`;
  await ctx.store.save(p);
  return applyProposal(ctx, p.id);
}

function isEngramNote(catalog: NoteCatalog, path: string): boolean {
  const m = catalog.get(path)?.meta;
  return m !== null && m !== undefined && (m.engramId !== undefined || m.engramSource !== undefined);
}

export interface StaleNote {
  path: string;
  lastRecalled?: string;
}

/** Engram's notes not recalled in `staleDays` (never-recalled notes count from their creation). */
export function staleNotes(catalog: NoteCatalog, settings: CurateSettings, stats: RecallStats, now: number): StaleNote[] {
  const cutoff = now - settings.staleDays * 86_400_000;
  const out: StaleNote[] = [];
  for (const path of curatable(catalog, settings)) {
    if (!isEngramNote(catalog, path)) continue;
    const s = stats.notes[path];
    const since = s?.last ?? catalog.get(path)!.meta!.created;
    if (since === undefined || since < cutoff) out.push({ path, lastRecalled: s ? new Date(s.last).toISOString() : undefined });
  }
  return out;
}

/** Engram's notes with no links to or from any other note. */
export function orphanNotes(catalog: NoteCatalog, settings: CurateSettings): string[] {
  return curatable(catalog, settings).filter((p) => isEngramNote(catalog, p) && catalog.outgoing(p).size === 0 && catalog.backlinks(p).size === 0);
}

/** Possible duplicates for the user to look at: the same body, or the same title in different folders. */
export function possibleDuplicates(catalog: NoteCatalog, settings: CurateSettings): Array<{ why: string; notes: string[] }> {
  const byBody = new Map<string, string[]>();
  const byTitle = new Map<string, string[]>();
  for (const path of curatable(catalog, settings)) {
    const n = catalog.get(path)!;
    const body = n.body.replace(/\s+/g, ' ').trim().toLowerCase();
    if (body.length >= 40) {
      const h = sha256Hex(body);
      byBody.set(h, [...(byBody.get(h) ?? []), path]);
    }
    const t = n.meta!.title.normalize('NFC').toLowerCase();
    byTitle.set(t, [...(byTitle.get(t) ?? []), path]);
  }
  // Notes alike in both text and title form one entry, not one per reason.
  const out: Array<{ why: string; notes: string[] }> = [];
  const bySet = new Map<string, { why: string; notes: string[] }>();
  const add = (why: string, notes: string[]) => {
    const key = [...notes].sort().join('\n');
    const seen = bySet.get(key);
    if (seen) seen.why = `${seen.why} and ${why.replace(/^same /, '')}`;
    else {
      const entry = { why, notes };
      bySet.set(key, entry);
      out.push(entry);
    }
  };
  for (const g of byBody.values()) if (g.length > 1) add('same text', g);
  for (const g of byTitle.values()) if (g.length > 1) add('same title', g);
  return out;
}
