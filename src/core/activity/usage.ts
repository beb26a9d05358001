// Whether what was injected was used: an injected note counts as "read" when an MCP `read` answered with it after the
// injection (within a day: MCP calls carry no session), and as "cited" when the session's assistant text, read at a
// later capture, names it (its title, its file name or its path). The share of injected notes read or cited is the
// dashboard's measure of whether injection earns its tokens; both signals are conservative (an agent may use a note
// without naming it), so the share is a floor.
import type { ActivityEntry } from './record.js';
import { runSync } from '../index/snapshot.js';

/** Titles shorter than this are common words ("Notes", "Ideas"): naming them proves nothing. */
const MIN_TITLE = 6;

const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

/** The injected notes (path, title) that the assistant's text names: by path, file name or title. */
export function citedNotes(injected: ReadonlyArray<{ path: string; title: string }>, assistantTexts: readonly string[]): string[] {
  if (!injected.length || !assistantTexts.length) return [];
  const text = fold(assistantTexts.join('\n'));
  const out = new Set<string>();
  for (const n of injected) {
    if (out.has(n.path)) continue;
    const base = n.path.slice(n.path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
    const names = [n.path, base, n.title].map(fold).filter((s) => s.length >= MIN_TITLE);
    if (names.some((s) => text.includes(s))) out.add(n.path);
  }
  return [...out];
}

export interface InjectionUse {
  /** Notes injected (each note of each injection counts once). */
  injected: number;
  /** Of those, read afterwards through MCP `read`. */
  read: number;
  /** Of those, named in the session's assistant text. */
  cited: number;
  /** Read or cited (a note both read and cited counts once). */
  used: number;
}

const DAY = 86_400_000;
/** Entries between two steps. */
const STEP = 256;

/** Of the injections among `entries` (oldest first), how many injected notes were later read or cited. */
export function injectionUse(entries: readonly ActivityEntry[]): InjectionUse {
  return runSync(injectionUseSteps(entries));
}

/** The same in steps (a UI host runs them in time slices: TimeSlicer.run). */
export function* injectionUseSteps(entries: readonly ActivityEntry[]): Generator<void, InjectionUse> {
  // When each note was last read over MCP, and which notes each session's captures found cited.
  const reads = new Map<string, number[]>();
  const cited = new Map<string, Set<string>>();
  for (const [i, e] of entries.entries()) {
    if (i % STEP === 0) yield;
    if (e.kind === 'mcp' && e.method === 'read' && !e.error) for (const p of e.notes ?? []) (reads.get(p) ?? reads.set(p, []).get(p)!).push(Date.parse(e.t));
    else if (e.kind === 'extract' && e.session && e.cited?.length) {
      const s = cited.get(e.session) ?? cited.set(e.session, new Set()).get(e.session)!;
      for (const p of e.cited) s.add(p);
    }
  }
  const use: InjectionUse = { injected: 0, read: 0, cited: 0, used: 0 };
  for (const [i, e] of entries.entries()) {
    if (i % STEP === 0) yield;
    if (e.kind !== 'inject') continue;
    const at = Date.parse(e.t);
    for (const n of e.notes) {
      use.injected++;
      const wasRead = (reads.get(n.path) ?? []).some((t) => t >= at && t - at <= DAY);
      const wasCited = !!e.session && (cited.get(e.session)?.has(n.path) ?? false);
      if (wasRead) use.read++;
      if (wasCited) use.cited++;
      if (wasRead || wasCited) use.used++;
    }
  }
  return use;
}

/**
 * Secrets redacted per session: each capture reads the session's transcript from its start, so its count covers the
 * captures before it; a session's figure is its largest (never their sum). Keyed by session, with the day it was seen.
 */
export function redactionsBySession(entries: readonly ActivityEntry[]): Map<string, { day: string; count: number }> {
  const out = new Map<string, { day: string; count: number }>();
  for (const e of entries) {
    if (e.kind !== 'extract' || !e.session || !e.redactions) continue;
    const count = Object.values(e.redactions).reduce((n, x) => n + x, 0);
    const was = out.get(e.session);
    if (!was || count > was.count) out.set(e.session, { day: e.t.slice(0, 10), count });
  }
  return out;
}
