// Whether what was injected was used: an injected note counts as "read" when an MCP `read` answered with it after the
// injection (within a day: MCP calls carry no session), and as "cited" when the session's assistant text, read at a
// later capture, names it (its title, its file name or its path). The share of injected notes read or cited is the
// dashboard's measure of whether injection earns its tokens; both signals are conservative (an agent may use a note
// without naming it), so the share is a floor.
import type { ActivityEntry } from './record.js';

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

/** One injected note in one session: how often it was injected, and how many of those injections a read followed. */
interface PathUse {
  n: number;
  read: number;
}

/**
 * The same figures added up entry by entry in the record's order (oldest first), keeping no entry: only the last day's
 * injections of each note (a read can still follow them) and, per session, a count per note.
 */
export class InjectionUseTally {
  /** Per note, its injections of the last day, oldest first, not yet followed by a read. */
  private readonly pending = new Map<string, Array<{ at: number; use: PathUse }>>();
  /** Per session ('' for none), per note. */
  private readonly bySession = new Map<string, Map<string, PathUse>>();
  private readonly cited = new Map<string, Set<string>>();

  add(e: ActivityEntry): void {
    if (e.kind === 'mcp' && e.method === 'read' && !e.error) {
      const at = Date.parse(e.t);
      for (const p of e.notes ?? []) {
        const list = this.pending.get(p);
        if (!list) continue;
        // Each injection a day or less before the read is read; later injections wait for a later read.
        const kept = list.filter((x) => {
          if (x.at > at) return true;
          if (at - x.at <= DAY) x.use.read++;
          return false;
        });
        if (kept.length) this.pending.set(p, kept);
        else this.pending.delete(p);
      }
    } else if (e.kind === 'extract' && e.session && e.cited?.length) {
      const s = this.cited.get(e.session) ?? this.cited.set(e.session, new Set()).get(e.session)!;
      for (const p of e.cited) s.add(p);
    } else if (e.kind === 'inject' && e.notes.length) {
      const at = Date.parse(e.t);
      const key = e.session ?? '';
      const paths = this.bySession.get(key) ?? this.bySession.set(key, new Map()).get(key)!;
      for (const n of e.notes) {
        const use = paths.get(n.path) ?? paths.set(n.path, { n: 0, read: 0 }).get(n.path)!;
        use.n++;
        const list = this.pending.get(n.path) ?? this.pending.set(n.path, []).get(n.path)!;
        // Injections more than a day old can no longer be read in time.
        while (list.length && at - list[0].at > DAY) list.shift();
        list.push({ at, use });
      }
    }
  }

  result(): InjectionUse {
    const use: InjectionUse = { injected: 0, read: 0, cited: 0, used: 0 };
    for (const [session, paths] of this.bySession) {
      const cited = session ? this.cited.get(session) : undefined;
      for (const [path, u] of paths) {
        use.injected += u.n;
        use.read += u.read;
        // A note cited in its session counts for each of its injections there; otherwise those a read followed.
        if (cited?.has(path)) {
          use.cited += u.n;
          use.used += u.n;
        } else use.used += u.read;
      }
    }
    return use;
  }
}

/** Of the injections among `entries` (oldest first), how many injected notes were later read or cited. */
export function injectionUse(entries: readonly ActivityEntry[]): InjectionUse {
  const t = new InjectionUseTally();
  for (const e of entries) t.add(e);
  return t.result();
}

/** A session's secrets redacted, entry by entry: each capture re-reads the transcript, so its largest count (never a sum). */
export function addRedactions(out: Map<string, { day: string; count: number }>, e: ActivityEntry): void {
  if (e.kind !== 'extract' || !e.session || !e.redactions) return;
  const count = Object.values(e.redactions).reduce((n, x) => n + x, 0);
  const was = out.get(e.session);
  if (!was || count > was.count) out.set(e.session, { day: e.t.slice(0, 10), count });
}

/**
 * Secrets redacted per session: each capture reads the session's transcript from its start, so its count covers the
 * captures before it; a session's figure is its largest (never their sum). Keyed by session, with the day it was seen.
 */
export function redactionsBySession(entries: readonly ActivityEntry[]): Map<string, { day: string; count: number }> {
  const out = new Map<string, { day: string; count: number }>();
  for (const e of entries) addRedactions(out, e);
  return out;
}
