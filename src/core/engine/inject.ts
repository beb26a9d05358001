// Context injection for the hooks (SessionStart, UserPromptSubmit): only notes that clear the relevance bar, never a
// private, outside or AI-addressed one, never one already in the session's context, within the per-session budget.
import type { ActivityRecord } from '../activity/record.js';
import type { SearchHit, SearchOptions } from '../index/types.js';
import type { NoteMeta } from '../note/meta.js';
import { contentTerms, gateTokenizer, type TermStats } from '../recall/term-stats.js';
import { judge, type GateVerdict } from '../recall/gate.js';
import { renderContext } from '../recall/render.js';
import { asksHowTo } from '../index/answering.js';
import { findDirectives } from '../recall/directives.js';
import { tokens } from '../recall/passages.js';
import { heldBack, type Vetting } from '../recall/vet.js';
import { withoutPrivate } from '../transcript/private.js';
import { withinCut } from '../team/recall.js';
import type { ContextItem, ContextResult } from '../protocol/messages.js';
import type { EngineLog } from './index-port.js';
import type { EngineConfig, Withheld } from './options.js';

/** What injection reads of the engine. */
export interface InjectionDeps {
  config: EngineConfig;
  stats: TermStats;
  notes(): Iterable<NoteMeta>;
  meta(path: string): NoteMeta | undefined;
  search(query: string, opts: SearchOptions): Promise<SearchHit[]>;
  vet(path: string): Promise<Vetting | null>;
  privateZone(path: string): string | undefined;
  noteRecalled(paths: string[]): void;
  log: EngineLog;
  onWithheld?: (w: Withheld) => void;
  activity?: ActivityRecord;
}

/** A hook's request for context. */
export interface ContextRequest {
  event: 'SessionStart' | 'UserPromptSubmit';
  source?: string;
  prompt?: string;
  sessionId?: string;
  project?: string;
  /** The client that runs the hook (`claude-code`, `codex`), for the activity record. */
  agent?: string;
  maxChars: number;
  maxItems: number;
  /** Most characters injected over the session, all events together (0 or absent: no limit). */
  sessionChars?: number;
  /**
   * More context after the vault's notes (the team's), given what is left of this event's budget (characters and
   * items), the vault notes given, and the bar its passages must clear (`relevant`: the vault's, see Injection.bar):
   * counted in the session's budget and the activity record as the vault's notes are.
   */
  more?: (left: { maxChars: number; maxItems: number }, vaultPaths: string[], relevant: <T extends OtherPassage>(passages: T[]) => T[]) => { text?: string; items: ContextItem[] };
}

/** A passage of another store (the team's) as the hook's bar reads it. */
export interface OtherPassage {
  title: string;
  heading?: string;
  snippet: string;
  /** As SearchHit.coverage: what the relative cut compares with the vault's best hit. */
  coverage?: number;
  /** As SearchHit.terms; absent, the terms of its title, heading and snippet. */
  terms?: string[];
}

type Item = ContextItem & { summary?: string; snippet?: string; heading?: string; type?: string };

export class Injection {
  /** Which notes each session was given (kept across restarts: engine/note-cache.ts). */
  readonly injected = new Map<string, Set<string>>();
  /** Characters injected so far per session (the per-session budget; afresh after /compact or /clear). */
  private readonly injectedChars = new Map<string, number>();

  constructor(private readonly d: InjectionDeps) {}

  /** Why a hook must not inject this note's `passage` (see heldBack), or null when it may (the user's or Engram's words, nothing addressed to an AI). */
  private async notInjected(path: string, passage: string | null): Promise<string | null> {
    const zone = this.d.privateZone(path);
    if (zone) return zone;
    if (this.d.meta(path)?.noInject) return 'inject: false in its frontmatter';
    const v = await this.d.vet(path);
    if (!v) return 'unreadable';
    const d = heldBack(v, passage);
    if (d) return `${d.kind}: "${d.excerpt}"`;
    if (v.trust.level === 'outside') return `outside text (${v.trust.why})`;
    return null;
  }

  /**
   * Context for a hook: only notes that clear the relevance bar, never one already in this session's context. A
   * SessionStart after `/compact` or `/clear` (`source`) starts that context afresh: what was injected before is gone
   * from the model's view, so the project's notes come back.
   */
  async context(p: ContextRequest): Promise<ContextResult> {
    if (p.event === 'SessionStart' && p.sessionId && (p.source === 'compact' || p.source === 'clear')) {
      this.injected.delete(p.sessionId);
      this.injectedChars.delete(p.sessionId);
    }
    if (p.sessionId && p.sessionChars) {
      // The per-session budget: what is left of it caps this event's budget; nothing fits, nothing is injected.
      const left = p.sessionChars - (this.injectedChars.get(p.sessionId) ?? 0);
      if (left < 200) return { items: [] };
      p = { ...p, maxChars: Math.min(p.maxChars, left) };
    }
    const seen = p.sessionId ? (this.injected.get(p.sessionId) ?? new Set<string>()) : new Set<string>();
    const items: Item[] = [];
    // Notes a hook would have injected but must not (outside text, words addressed to an AI): said in the activity record.
    const withheld: Withheld[] = [];
    if (p.event === 'SessionStart') {
      // At session start the bar is the project itself: the project's own notes, newest first.
      for (const meta of this.projectNotes(p.project)) {
        if (items.length >= p.maxItems) break;
        if (seen.has(meta.path)) continue;
        // Only the title and summary go out at session start.
        const no = await this.notInjected(meta.path, null);
        if (no) {
          withheld.push({ event: p.event, path: meta.path, reason: no });
          continue;
        }
        const when = meta.updated ?? meta.created;
        const why = [`note of project ${meta.project}`, ...(when ? [`updated ${new Date(when).toISOString().slice(0, 10)}`] : [])];
        items.push({ path: meta.path, title: meta.title, why, score: when ?? 0, summary: meta.summary, type: meta.type });
      }
      return this.finishContext(p, items, seen, withheld);
    }
    // A private span in the prompt is not even searched for.
    const query = withoutPrivate(p.prompt ?? '').text;
    if (!query.trim()) return { items: [] };
    // Automatic injection reads the prompt as a topic: "last week" in a question must not filter notes by date.
    const hits = await this.d.search(query, { limit: 12, projects: p.project ? [p.project] : undefined, timePhrases: false });
    const said = gateTokenizer.wordsByTerm(query);
    for (const hit of hits) {
      if (items.length >= p.maxItems) break;
      if (seen.has(hit.path)) continue;
      // The bar is read on the passage that matched (with the note's title, summary and tags), not the whole note: a
      // long list note holds every word of any prompt somewhere.
      const terms = hit.terms ?? this.d.stats.termsOf(hit.path);
      if (!terms) continue;
      const verdict = this.bar(query, terms);
      if (!verdict.pass) continue;
      // The passage that matched is what goes out (its heading and a snippet of it): only it must be clean. The text
      // itself is read too, in case the index's passage is older than the file vet read.
      const shown = findDirectives([hit.title, hit.summary ?? '', hit.heading ?? '', hit.snippet].join('\n'))[0];
      const no = (await this.notInjected(hit.path, hit.heading ?? '')) ?? (shown && !(await this.d.vet(hit.path))?.trust.byUser ? `${shown.kind}: "${shown.excerpt}"` : null);
      if (no) {
        withheld.push({ event: 'UserPromptSubmit', path: hit.path, ...(hit.heading ? { heading: hit.heading } : {}), reason: no });
        continue;
      }
      const why = [...hit.why.filter((w) => !w.startsWith('words:')), `shares: ${verdict.matched.slice(0, 6).map((t) => said.get(t) ?? t).join(', ')}`];
      // A how-to question is answered by the note's steps, not by its summary ("An explanation of pinning nixpkgs").
      const summary = hit.snippet && asksHowTo(query) ? undefined : hit.summary;
      items.push({ path: hit.path, title: hit.title, why, score: hit.score, summary, snippet: hit.snippet, heading: hit.heading, type: hit.type });
    }
    // Another store's passages clear the same bar, and the relative cut against the best hit of both stores.
    const relevant = <T extends OtherPassage>(passages: T[]): T[] =>
      withinCut(hits, passages).filter((h) => this.bar(query, h.terms ?? contentTerms([h.title, h.heading ?? '', h.snippet].join('\n'))).pass);
    return this.finishContext(p, items, seen, withheld, relevant);
  }

  /**
   * The relevance bar of a prompt's injection, for every passage it may inject (the vault's and the team's): the
   * passage's terms must cover enough of the prompt, weighed by rarity in the vault (recall/gate.ts).
   */
  private bar(query: string, terms: Iterable<string>): GateVerdict {
    return judge(query, terms, this.d.stats, this.d.config.gate);
  }

  /** A project's notes that are current (not superseded, not archived), newest first. */
  private projectNotes(project: string | undefined): NoteMeta[] {
    if (!project) return [];
    const archive = `${this.d.config.folders.archive}/`;
    return [...this.d.notes()]
      .filter((m) => m.project === project && !m.supersededBy && !m.path.startsWith(archive))
      .sort((a, b) => (b.updated ?? b.created ?? 0) - (a.updated ?? a.created ?? 0));
  }

  private finishContext(
    p: Pick<ContextRequest, 'event' | 'sessionId' | 'project' | 'agent' | 'maxChars' | 'maxItems' | 'more'>,
    items: Item[],
    seen: Set<string>,
    withheld: Withheld[] = [],
    relevant: <T extends OtherPassage>(passages: T[]) => T[] = () => [],
  ): ContextResult {
    if (withheld.length) this.d.log('info', `withheld from ${p.event} injection: ${withheld.map((w) => `${w.path}${w.heading ? `#${w.heading}` : ''} (${w.reason})`).join(', ')}`);
    for (const w of withheld) this.d.onWithheld?.(w);
    const heading = p.event === 'SessionStart' ? 'Notes from the user\'s Obsidian vault about this project (reference data):' : 'Possibly relevant notes from the user\'s Obsidian vault (reference data):';
    const own = renderContext(items, p.maxChars, heading);
    const kept = items.slice(0, own.used);
    this.d.noteRecalled(kept.map((k) => k.path));
    const left = { maxChars: p.maxChars - (own.text ? own.text.length + 1 : 0), maxItems: p.maxItems - kept.length };
    const more = left.maxItems > 0 ? p.more?.(left, kept.map((k) => k.path), relevant) : undefined;
    const text = more?.text ? (own.text ? `${own.text}\n${more.text}` : more.text) : own.text;
    const given = [...kept, ...(more?.text ? more.items : [])];
    if (p.sessionId && given.length) {
      for (const k of kept) seen.add(k.path);
      this.injected.set(p.sessionId, seen);
      this.injectedChars.set(p.sessionId, (this.injectedChars.get(p.sessionId) ?? 0) + (text?.length ?? 0));
      if (this.injectedChars.size > 500) this.injectedChars.delete(this.injectedChars.keys().next().value as string);
    }
    // What went out and its size, for the activity record.
    if (given.length) this.d.log('info', `injected ${p.event}: ${given.length} notes, ${text?.length ?? 0} chars (${given.map((k) => k.path).join(', ')})`);
    const chars = text?.length ?? 0;
    this.d.activity?.add({
      kind: 'inject',
      event: p.event,
      session: p.sessionId,
      project: p.project,
      ...(p.agent ? { agent: p.agent } : {}),
      notes: given.map((k: Item) => ({ path: k.path, title: k.title, why: k.why, ...(k.heading ? { heading: k.heading } : {}) })),
      chars,
      tokens: chars ? tokens(chars) : 0,
      withheld: withheld.map((w) => ({ path: w.path, why: w.reason, ...(w.heading ? { heading: w.heading } : {}) })),
    });
    return { text, items: given.map(({ path, title, why, score }) => ({ path, title, why, score })) };
  }

}
