// Applies one proposal as a unit: checks that its sources are unchanged, writes the new notes, rewrites links
// across the vault, moves originals to the trash (or the archive), and logs it. A failure before anything is
// removed undoes what was written; nothing the user wrote since the proposal is overwritten.
import { EngramError, isEngramError } from '../errors';
import { sha256Hex } from '../hash';
import { parseNote } from '../note/frontmatter';
import { readNoteMeta } from '../note/meta';
import type { Clock, VaultPort, Yield } from '../ports';
import { appendLog } from './change-log';
import { loadCatalog, type NoteCatalog } from './catalog';
import { moveRedirect, rewriteLinks, splitRedirect, type Redirect } from './link-rewrite';
import type { LinkResolver } from './link-resolver';
import { isExpired, type FileRewrite, type Proposal, type ProposalStore, type RedirectSpec } from './proposals';
import type { CurateSettings } from './settings';

export interface CurateContext {
  vault: VaultPort;
  store: ProposalStore;
  settings: CurateSettings;
  clock: Clock;
  yieldNow?: Yield;
}

export interface PlannedRewrite extends FileRewrite {
  before: string;
  after: string;
}

export interface ApplyResult {
  proposal: Proposal;
  wrote: string[];
  trashed: string[];
  moved: Array<[string, string]>;
  relinked: string[];
  logPath: string;
}

export function redirectFrom(spec: RedirectSpec): Redirect {
  return spec.kind === 'move' ? moveRedirect(new Map(spec.moves)) : splitRedirect(spec.original, spec.rest, spec.parts);
}

function redirectedPaths(spec: RedirectSpec): string[] {
  return spec.kind === 'move' ? spec.moves.map(([from]) => from) : [spec.original];
}

/** The vault's resolver as it will be once the proposal is applied. */
export function resolverAfter(catalog: NoteCatalog, p: Pick<Proposal, 'trash' | 'moves' | 'writes'>): LinkResolver {
  return catalog.resolver.with({
    remove: [...p.trash, ...p.moves.map(([from]) => from)],
    add: [...p.writes.map((w) => w.path), ...p.moves.map(([, to]) => to)],
  });
}

/**
 * Link rewrites across the vault for a change: only notes with a backlink to a redirected note are parsed again.
 * Notes the change itself writes, removes or moves are skipped (their new text is already exact).
 */
export function planLinkRewrites(catalog: NoteCatalog, p: Pick<Proposal, 'trash' | 'moves' | 'writes' | 'redirect'>): PlannedRewrite[] {
  if (!p.redirect) return [];
  const skip = new Set([...p.trash, ...p.writes.map((w) => w.path), ...p.moves.map(([from]) => from)]);
  const files = new Set<string>();
  for (const path of redirectedPaths(p.redirect)) for (const b of catalog.backlinks(path)) if (!skip.has(b)) files.add(b);
  const ctx = { before: catalog.resolver, after: resolverAfter(catalog, p), redirect: redirectFrom(p.redirect) };
  const out: PlannedRewrite[] = [];
  for (const path of [...files].sort()) {
    const note = catalog.get(path)!;
    // Invalid frontmatter: left byte-for-byte alone. Locked: never touched by curation. Their links stay as written.
    if (note.meta === null || note.meta.locked) continue;
    const r = rewriteLinks(note.text, path, path, ctx, note.links);
    if (r.edits.length) out.push({ path, edits: r.edits, before: note.text, after: r.text });
  }
  return out;
}

function stale(path: string, why: string): EngramError {
  return new EngramError('refused', `proposal is stale: ${path} ${why} since it was made; nothing was changed`, 'run the dry run again for a fresh proposal');
}

async function readOrNull(vault: VaultPort, path: string): Promise<string | null> {
  try {
    return (await vault.read(path)).text;
  } catch (e) {
    if (isEngramError(e, 'not-found')) return null;
    throw e;
  }
}

export async function applyProposal(ctx: CurateContext, id: string): Promise<ApplyResult> {
  const p = await ctx.store.load(id);
  const now = ctx.clock.now();
  if (!p) throw new EngramError('not-found', `no proposal with id ${id}`, 'run the command with --dry-run to list current proposals');
  if (p.appliedAt) throw new EngramError('refused', `proposal ${id} was already applied at ${p.appliedAt}`);
  if (isExpired(p, now)) throw new EngramError('refused', `proposal ${id} expired at ${p.expiresAt}`, 'run the dry run again for a fresh proposal');

  // 1. Every source must be exactly as it was, and still unlocked.
  const sourceText = new Map<string, string>();
  for (const s of p.sources) {
    const text = await readOrNull(ctx.vault, s.path);
    if (text === null) throw stale(s.path, 'was removed or renamed');
    if (sha256Hex(text) !== s.hash) throw stale(s.path, 'changed');
    const parsed = parseNote(text);
    if (parsed.data && readNoteMeta(s.path, parsed.data).locked) throw new EngramError('refused', `${s.path} is locked; curation never touches it`);
    sourceText.set(s.path, text);
  }
  const trashed = new Set(p.trash);
  for (const w of p.writes) {
    if (!w.replaces && !trashed.has(w.path) && (await ctx.vault.exists(w.path))) {
      throw new EngramError('conflict', `a note now exists at ${w.path}; nothing was changed`, 'run the dry run again for a fresh proposal');
    }
  }
  for (const [, to] of p.moves) {
    if (await ctx.vault.exists(to)) throw new EngramError('conflict', `a note now exists at ${to}; nothing was changed`);
  }

  // 2. Links across the vault as it is now (notes may have gained links since the proposal).
  const rewrites = p.redirect ? planLinkRewrites(await loadCatalog(ctx.vault, { yieldNow: ctx.yieldNow }), p) : [];

  // 3. Write, keeping an undo list until the first irreversible step.
  const undo: Array<() => Promise<void>> = [];
  const wrote: string[] = [];
  const relinked: string[] = [];
  try {
    for (const w of p.writes) {
      if (w.replaces || trashed.has(w.path)) continue;
      await ctx.vault.create(w.path, w.text);
      wrote.push(w.path);
      undo.push(() => ctx.vault.trash(w.path));
    }
    for (const r of rewrites) {
      await ctx.vault.writeIfUnchanged(r.path, r.before, r.after);
      relinked.push(r.path);
      undo.push(async () => {
        await ctx.vault.writeIfUnchanged(r.path, r.after, r.before);
      });
    }
    for (const w of p.writes) {
      if (!w.replaces || trashed.has(w.path)) continue;
      const before = sourceText.get(w.path);
      if (before === undefined) throw new Error(`internal: ${w.path} replaced but not a source`);
      await ctx.vault.writeIfUnchanged(w.path, before, w.text);
      wrote.push(w.path);
      undo.push(async () => {
        await ctx.vault.writeIfUnchanged(w.path, w.text, before);
      });
    }
  } catch (e) {
    for (const u of undo.reverse()) await u().catch(() => undefined);
    if (isEngramError(e, 'conflict')) throw new EngramError('conflict', `a note changed while the proposal was applied; nothing was changed (${e.message})`, 'run the dry run again');
    throw e;
  }
  // 4. Originals to the trash, then the notes that take their place, then moves. From here on there is no undo:
  // whatever happened is logged, even when a step fails.
  let failure: Error | undefined;
  const trashedNow: string[] = [];
  const movedNow: Array<[string, string]> = [];
  try {
    for (const path of p.trash) {
      const current = await readOrNull(ctx.vault, path);
      if (current !== null && current !== sourceText.get(path)) {
        throw new EngramError('conflict', `${path} changed while the proposal was applied: it was left in place, and the notes already written (${wrote.join(', ') || 'none'}) were kept`, 'compare the two and remove the one you do not want');
      }
      if (current !== null) {
        await ctx.vault.trash(path);
        trashedNow.push(path);
      }
    }
    for (const w of p.writes) {
      if (!trashed.has(w.path) || w.replaces) continue;
      await ctx.vault.create(w.path, w.text);
      wrote.push(w.path);
    }
    for (const [from, to] of p.moves) {
      await ctx.vault.rename(from, to);
      movedNow.push([from, to]);
    }
  } catch (e) {
    failure = e instanceof Error ? e : new Error(String(e));
  }

  const logFile = await appendLog(ctx.vault, ctx.settings.folders.log, ctx.settings.device, {
    at: now,
    actor: ctx.settings.actor,
    action: `${p.family} ${p.kind}${p.backend ? ` (${p.backend})` : ''}`,
    proposal: p.id,
    wrote,
    from: p.sources.map((s) => s.path),
    trashed: trashedNow,
    moved: movedNow,
    relinked: relinked.length,
    note: failure === undefined ? p.title : `${p.title} · INCOMPLETE: ${failure.message}`,
  });
  if (failure !== undefined) throw failure;
  p.appliedAt = new Date(now).toISOString();
  await ctx.store.save(p);
  return { proposal: p, wrote, trashed: trashedNow, moved: movedNow, relinked, logPath: logFile };
}
