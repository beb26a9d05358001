// Applies one proposal as a journaled unit: checks that its sources are unchanged, stores the plan (every vault
// change with the texts before and after) with the proposal, logs the start, then writes the new notes first,
// moves and relinks, and trashes last, and logs the end. A failure undoes what was done; a crash (kill -9, power
// loss) leaves the journal, and the next apply of the same id completes it, or rolls it back when notes changed
// since. Nothing the user wrote since the proposal is overwritten.
import { EngramError, isEngramError } from '../errors';
import { sha256Hex } from '../hash';
import { parseNote } from '../note/frontmatter';
import { readNoteMeta } from '../note/meta';
import type { Clock, VaultPort, Yield } from '../ports';
import { appendLogOnce, isChangeLog, type LogEntry } from './change-log';
import { loadCatalog, type NoteCatalog } from './catalog';
import { headingKey, moveRedirect, rewriteLinks, splitRedirect, type LinkEdit, type Redirect } from './link-rewrite';
import type { LinkResolver } from './link-resolver';
import { expiredProposal, isExpired, staleProposal as stale, type ApplyJournal, type ApplyStep, type FileRewrite, type Proposal, type ProposalStore, type RedirectSpec } from './proposals';
import { inFolder, type CurateSettings } from './settings';

export interface CurateContext {
  vault: VaultPort;
  store: ProposalStore;
  settings: CurateSettings;
  clock: Clock;
  yieldNow?: Yield;
  /** Called after each durable step of an apply (journal saved, log line, each vault change): the host's crash switch. */
  fault?: () => void;
}

export interface PlannedRewrite extends FileRewrite {
  before: string;
  after: string;
}

/** A note whose links to a changed note were left as written (curation never rewrites it), and why. */
export interface LeftAlone {
  path: string;
  links: number;
  why: string;
}

export interface ApplyResult {
  proposal: Proposal;
  wrote: string[];
  trashed: string[];
  moved: Array<[string, string]>;
  relinked: string[];
  /** Notes whose links still point at the old note (invalid YAML, locked): fix them by hand. */
  leftAlone?: LeftAlone[];
  logPath: string;
  /** The apply finished one that a crash interrupted. */
  resumed?: boolean;
}

export function redirectFrom(spec: RedirectSpec): Redirect {
  if (spec.kind === 'split') return splitRedirect(spec.original, spec.rest, spec.parts);
  const renames = new Map((spec.renames ?? []).map((r) => [r.path, { headings: new Map(r.headings.map(([a, b]) => [headingKey(a), b])), blocks: new Map(r.blocks) }]));
  return moveRedirect(new Map(spec.moves), renames);
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

/** The notes that link to a note the change redirects (sorted; the change's own notes aside), and the rewrite context. */
function linking(catalog: NoteCatalog, p: Pick<Proposal, 'trash' | 'moves' | 'writes'>, redirect: RedirectSpec) {
  const skip = new Set([...p.trash, ...p.writes.map((w) => w.path), ...p.moves.map(([from]) => from)]);
  const files = new Set<string>();
  for (const path of redirectedPaths(redirect)) for (const b of catalog.backlinks(path)) if (!skip.has(b)) files.add(b);
  return { files: [...files].sort(), ctx: { before: catalog.resolver, after: resolverAfter(catalog, p), redirect: redirectFrom(redirect) } };
}

type LinkChange = Pick<Proposal, 'trash' | 'moves' | 'writes' | 'redirect'>;

/**
 * Link rewrites across the vault for a change: only notes with a backlink to a redirected note are parsed again.
 * Notes the change itself writes, removes or moves are skipped (their new text is already exact). Notes whose links
 * would follow the change but are left byte for byte alone (invalid frontmatter, locked) are listed apart: their links
 * keep pointing at the old note, and the user is told which notes and why. The change log (any device's, a synced copy
 * of it included) is a record, only ever appended to: its links stay as written, and it is in neither list.
 */
export function planLinks(catalog: NoteCatalog, p: LinkChange): { rewrites: PlannedRewrite[]; leftAlone: LeftAlone[] } {
  const rewrites: PlannedRewrite[] = [];
  const leftAlone: LeftAlone[] = [];
  if (!p.redirect) return { rewrites, leftAlone };
  const { files, ctx } = linking(catalog, p, p.redirect);
  for (const path of files) {
    const note = catalog.get(path)!;
    if (isChangeLog(note.text)) continue;
    const r = rewriteLinks(note.text, path, path, ctx, note.links);
    if (!r.edits.length) continue;
    if (note.meta === null || note.meta.locked) {
      leftAlone.push({ path, links: r.edits.length, why: note.meta === null ? 'its frontmatter is not valid YAML' : 'it is locked' });
    } else {
      rewrites.push({ path, edits: r.edits, before: note.text, after: r.text });
    }
  }
  return { rewrites, leftAlone };
}

export function planLinkRewrites(catalog: NoteCatalog, p: LinkChange): PlannedRewrite[] {
  return planLinks(catalog, p).rewrites;
}

/** A note's text, or null when it is not there. */
export async function readOrNull(vault: VaultPort, path: string): Promise<string | null> {
  try {
    return (await vault.read(path)).text;
  } catch (e) {
    if (isEngramError(e, 'not-found')) return null;
    throw e;
  }
}

/**
 * The vault changes in order: new notes first (a note replaced in place goes to the trash and is written again
 * at once), then moves, then links pointing at the new homes, and the notes that are removed last.
 */
export function planSteps(p: Proposal, sourceText: Map<string, string>, rewrites: PlannedRewrite[]): ApplyStep[] {
  const trashed = new Set(p.trash);
  const source = (path: string): string => {
    const t = sourceText.get(path);
    if (t === undefined) throw new Error(`internal: ${path} changed by a proposal but not one of its sources`);
    return t;
  };
  const steps: ApplyStep[] = [];
  for (const w of p.writes) if (!w.replaces && !trashed.has(w.path)) steps.push({ op: 'create', path: w.path, text: w.text });
  for (const w of p.writes) {
    if (!trashed.has(w.path)) continue;
    // The original stays recoverable in the trash under its own name; the new text takes its place right away.
    steps.push({ op: 'trash', path: w.path, before: source(w.path) });
    steps.push({ op: 'create', path: w.path, text: w.text });
  }
  for (const w of p.writes) if (w.replaces && !trashed.has(w.path)) steps.push({ op: 'write', path: w.path, before: source(w.path), after: w.text });
  for (const [from, to] of p.moves) steps.push({ op: 'rename', from, to, text: source(from) });
  for (const r of rewrites) steps.push({ op: 'write', path: r.path, before: r.before, after: r.after, relink: r.edits });
  const written = new Set(p.writes.map((w) => w.path));
  for (const path of p.trash) if (!written.has(path)) steps.push({ op: 'trash', path, before: source(path) });
  return steps;
}

type StepState = 'done' | 'pending' | 'conflict';

/** Whether a step happened, judged from the vault alone (`prev` and `next` are the steps around it). */
async function stepState(vault: VaultPort, step: ApplyStep, next: ApplyStep | undefined, prev?: ApplyStep): Promise<StepState> {
  if (step.op === 'rename') {
    const [from, to] = [await readOrNull(vault, step.from), await readOrNull(vault, step.to)];
    if (from === null && to === step.text) return 'done';
    if (from === step.text && to === null) return 'pending';
    return 'conflict';
  }
  const current = await readOrNull(vault, step.path);
  if (step.op === 'create') {
    if (current === null) return 'pending';
    if (current === step.text) return 'done';
    // Written in place after its original goes to the trash: the original still there means not yet.
    return prev?.op === 'trash' && prev.path === step.path && current === prev.before ? 'pending' : 'conflict';
  }
  if (step.op === 'write') return current === step.after ? 'done' : current === step.before ? 'pending' : 'conflict';
  if (current === null) return 'done';
  if (current === step.before) return 'pending';
  // Trashed and written again in place.
  return next?.op === 'create' && next.path === step.path && current === next.text ? 'done' : 'conflict';
}

async function doStep(vault: VaultPort, step: ApplyStep): Promise<void> {
  if (step.op === 'create') await vault.create(step.path, step.text);
  else if (step.op === 'write') await vault.writeIfUnchanged(step.path, step.before, step.after);
  else if (step.op === 'rename') await vault.rename(step.from, step.to);
  else {
    const current = await readOrNull(vault, step.path);
    if (current !== null && current !== step.before) throw new EngramError('conflict', `${step.path} changed while the proposal was applied`);
    if (current !== null) await vault.trash(step.path);
  }
}

async function undoStep(vault: VaultPort, step: ApplyStep): Promise<void> {
  if (step.op === 'create') await vault.trash(step.path);
  else if (step.op === 'write') await vault.writeIfUnchanged(step.path, step.after, step.before);
  else if (step.op === 'rename') await vault.rename(step.to, step.from);
  // The trashed original is written back from the journal (its copy stays in the trash).
  else await vault.create(step.path, step.before);
}

/**
 * Undoes link edits (offsets into the text before them) on a text the user changed since: each edited link is
 * found where it was written, shifted by the user's change when that lies before it; null when the user's change
 * touches an edited link.
 */
export function unrelink(after: string, current: string, edits: LinkEdit[]): string | null {
  let prefix = 0;
  const max = Math.min(after.length, current.length);
  while (prefix < max && after[prefix] === current[prefix]) prefix++;
  let suffix = 0;
  while (suffix < max - prefix && after[after.length - 1 - suffix] === current[current.length - 1 - suffix]) suffix++;
  const shift = current.length - after.length;
  let delta = 0;
  const located: Array<{ at: number; e: LinkEdit }> = [];
  for (const e of edits) {
    const start = e.start + delta;
    delta += e.after.length - e.before.length;
    const end = start + e.after.length;
    if (end <= prefix) located.push({ at: start, e });
    else if (start >= after.length - suffix) located.push({ at: start + shift, e });
    else return null;
  }
  let out = current;
  for (const { at, e } of located.reverse()) {
    if (out.slice(at, at + e.after.length) !== e.after) return null;
    out = out.slice(0, at) + e.before + out.slice(at + e.after.length);
  }
  return out;
}

function plain(title: string): string {
  // The log never links to notes that may be gone: `[[Note]]` becomes `Note` in code.
  return title.replace(/\[\[([^\]|]+)(?:\|[^\]]*)?\]\]/g, '`$1`');
}

function logEntry(ctx: CurateContext, p: Proposal, j: ApplyJournal, end: 'start' | 'applied' | { rolledBack: string }): LogEntry {
  const base = { at: j.startedAt, actor: ctx.settings.actor, action: `${p.family} ${p.kind}${p.backend ? ` (${p.backend})` : ''}`, proposal: p.id };
  // The start line names only the proposal (its end line says what changed), so the log adds no second copy of titles.
  if (end === 'start') return { ...base, wrote: [], from: [], trashed: [], moved: [], relinked: 0, note: 'started' };
  if (end !== 'applied') return { ...base, wrote: [], from: [], trashed: [], moved: [], relinked: 0, note: `rolled back, nothing changed (${end.rolledBack})` };
  const r = outcome(p, j);
  const left = p.leftAlone?.length ? `; links left as written in ${p.leftAlone.map((l) => `${l.path} (${l.why})`).join(', ')}` : '';
  return { ...base, wrote: r.wrote, from: p.sources.map((s) => s.path), trashed: r.trashed, moved: r.moved, relinked: r.relinked.length, note: `${plain(p.title)}${left}` };
}

function outcome(p: Proposal, j: ApplyJournal): Omit<ApplyResult, 'proposal' | 'logPath'> {
  return {
    wrote: p.writes.map((w) => w.path),
    trashed: j.steps.flatMap((s) => (s.op === 'trash' ? [s.path] : [])),
    moved: j.steps.flatMap((s) => (s.op === 'rename' ? [[s.from, s.to] as [string, string]] : [])),
    relinked: j.steps.flatMap((s) => (s.op === 'write' && s.relink ? [s.path] : [])),
  };
}

async function rollBack(ctx: CurateContext, p: Proposal, j: ApplyJournal, why: string): Promise<never> {
  const left: string[] = [];
  for (let i = j.steps.length - 1; i >= 0; i--) {
    const step = j.steps[i];
    const state = await stepState(ctx.vault, step, j.steps[i + 1], j.steps[i - 1]);
    if (state === 'pending') continue;
    const name = step.op === 'rename' ? step.from : step.path;
    if (state === 'conflict') {
      // A relinked note the user edited since: its links are put back when the edit lies elsewhere.
      const current = step.op === 'write' && step.relink ? await readOrNull(ctx.vault, step.path) : null;
      const back = current !== null && step.op === 'write' && step.relink ? unrelink(step.after, current, step.relink) : null;
      if (back !== null && current !== null) await ctx.vault.writeIfUnchanged(name, current, back).catch(() => left.push(name));
      else left.push(name);
      continue;
    }
    try {
      await undoStep(ctx.vault, step);
    } catch (e) {
      // Cannot undo now: the journal stays, and the next apply (or `engram doctor`) finds it.
      throw new EngramError('conflict', `proposal ${p.id} failed (${why}) and could not be undone at ${name} (${(e as Error).message}); it is recorded as interrupted`, `apply it again to finish or roll back: ${p.family === 'review' ? 'engram review' : `engram ${p.family}`} --apply ${p.id}`);
    }
  }
  await appendLogOnce(ctx.vault, ctx.settings.folders.log, ctx.settings.device, logEntry(ctx, p, j, { rolledBack: why }));
  delete p.applying;
  await ctx.store.save(p);
  const kept = left.length ? `; changed since, left as they are: ${left.join(', ')}` : '';
  throw new EngramError('conflict', `proposal ${p.id} was rolled back: ${why}${kept}`, 'run the dry run again for a fresh proposal');
}

/** Runs (or resumes) a journaled apply to its end: completed and logged, or rolled back and logged. */
async function runJournal(ctx: CurateContext, p: Proposal, resumed: boolean): Promise<ApplyResult> {
  const j = p.applying!;
  const fault = ctx.fault ?? (() => undefined);
  const folder = ctx.settings.folders.log;
  const device = ctx.settings.device;
  let states: StepState[];
  try {
    await appendLogOnce(ctx.vault, folder, device, logEntry(ctx, p, j, 'start'));
    fault();
    states = resumed ? await Promise.all(j.steps.map((s, i) => stepState(ctx.vault, s, j.steps[i + 1], j.steps[i - 1]))) : j.steps.map(() => 'pending' as const);
  } catch (e) {
    if (!resumed) {
      delete p.applying;
      await ctx.store.save(p);
      throw e;
    }
    throw new EngramError('conflict', `proposal ${p.id} could not start: ${(e as Error).message}; it is recorded as interrupted`, `apply it again: engram ${p.family} --apply ${p.id}`);
  }
  // A note changed since the crash: undo, unless only the end was left (then the change stands, and so do the edits).
  const conflict = states.findIndex((s) => s === 'conflict');
  if (conflict >= 0 && states.includes('pending')) {
    const s = j.steps[conflict];
    return rollBack(ctx, p, j, `${s.op === 'rename' ? s.from : s.path} changed after the apply was interrupted`);
  }
  for (let i = 0; i < j.steps.length; i++) {
    if (states[i] !== 'pending') continue;
    try {
      await doStep(ctx.vault, j.steps[i]);
    } catch (e) {
      const why = isEngramError(e, 'conflict') ? `a note changed while the proposal was applied (${(e as Error).message})` : (e as Error).message;
      return rollBack(ctx, p, j, why);
    }
    fault();
  }
  const logFile = await appendLogOnce(ctx.vault, folder, device, logEntry(ctx, p, j, 'applied'));
  fault();
  const result = outcome(p, j);
  delete p.applying;
  p.appliedAt = new Date(j.startedAt).toISOString();
  await ctx.store.save(p);
  return { proposal: p, ...result, logPath: logFile, ...(resumed ? { resumed } : {}) };
}

export async function applyProposal(ctx: CurateContext, id: string): Promise<ApplyResult> {
  const p = await ctx.store.load(id);
  const now = ctx.clock.now();
  if (!p) throw new EngramError('not-found', `no proposal with id ${id}`, 'run the command with --dry-run to list current proposals');
  // Interrupted earlier (a crash): finish it, or roll it back when notes changed since.
  if (p.applying) return runJournal(ctx, p, true);
  if (p.appliedAt) throw new EngramError('refused', `proposal ${id} was already applied at ${p.appliedAt}`);
  if (isExpired(p, now)) throw expiredProposal(id, p.expiresAt);

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
  // The log folder is never a target either: its notes are appended to while the apply runs.
  const current = p.redirect ? await loadCatalog(ctx.vault, { yieldNow: ctx.yieldNow }) : null;
  const planned = current ? planLinks(current, p) : { rewrites: [], leftAlone: [] };
  const rewrites = planned.rewrites.filter((r) => !inFolder(r.path, ctx.settings.folders.log));
  const leftAlone = planned.leftAlone.filter((l) => !inFolder(l.path, ctx.settings.folders.log));
  if (leftAlone.length) p.leftAlone = leftAlone;

  // 3. The journal, stored before the vault changes.
  p.applying = { startedAt: now, steps: planSteps(p, sourceText, rewrites) };
  await ctx.store.save(p);
  ctx.fault?.();
  const result = await runJournal(ctx, p, false);
  return leftAlone.length ? { ...result, leftAlone } : result;
}
