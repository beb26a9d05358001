// Trust by provenance (issue 32): every note gets a level derived from where its text came from, never typed by hand
// unless the user raises (or lowers) it. `user`: written by the user. `engram`: filed by Engram from the user's own
// words (`engram_source` present). `outside`: text nobody in the vault wrote: a web clipping (a `source:` http address
// in the frontmatter, as the Web Clipper writes it, the `clippings` tag or a `[[Clippings]]` category, the Web
// Clipper's `Clippings/` folder) or a folder the user marks (`recall.outside_folders`). A `url:` alone is not read as
// outside: people put it on their own notes about a site or a project (kepano's vault does). Hooks never inject outside notes; recall and search still find them, marked.
// The user raises a note with `engram_trust: user` in its frontmatter (a read-only key: Engram never writes it) or a
// folder with `recall.trusted_folders`.

export type TrustLevel = 'user' | 'engram' | 'outside';

export interface TrustConfig {
  /** Vault folders whose notes are outside text (the Web Clipper's default folder by default). */
  outsideFolders: string[];
  /** Vault folders whose notes are the user's own, whatever their frontmatter says. */
  trustedFolders: string[];
}

export const DEFAULT_TRUST: TrustConfig = { outsideFolders: ['Clippings'], trustedFolders: [] };

export interface Trust {
  level: TrustLevel;
  /** Why, for people: "source: https://…", "folder Clippings", "engram_trust: user". */
  why: string;
  /**
   * The user raised this very note (`engram_trust: user` in its frontmatter): their word that its text is theirs, so
   * even words that read as addressed to an AI (a note about prompt injection) are injected and shown as written.
   */
  byUser?: true;
}

function inFolder(path: string, folders: string[]): string | undefined {
  const lower = path.toLowerCase();
  return folders.find((f) => f && lower.startsWith(`${f.toLowerCase().replace(/\/+$/, '')}/`));
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

const WEB_RE = /^\s*["'<]?https?:\/\//i;

/** The trust level of the note at `path` with frontmatter `data`. */
export function noteTrust(path: string, data: Record<string, unknown> | null | undefined, cfg: TrustConfig = DEFAULT_TRUST): Trust {
  const d = data ?? {};
  const said = text(d.engram_trust)?.toLowerCase();
  if (said === 'user') return { level: 'user', why: 'engram_trust: user', byUser: true };
  if (said === 'outside') return { level: 'outside', why: 'engram_trust: outside' };
  const trusted = inFolder(path, cfg.trustedFolders);
  if (trusted) return { level: 'user', why: `trusted folder ${trusted}` };
  if (text(d.engram_source) ?? text(d.cb_source)) return { level: 'engram', why: `engram_source: ${text(d.engram_source) ?? text(d.cb_source)}` };
  const folder = inFolder(path, cfg.outsideFolders);
  if (folder) return { level: 'outside', why: `folder ${folder}` };
  const source = text(Array.isArray(d.source) ? (d.source as unknown[])[0] : d.source);
  if (source && WEB_RE.test(source)) return { level: 'outside', why: `source: ${source.length > 60 ? `${source.slice(0, 59)}…` : source}` };
  const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\s]+/) : []);
  if (listOf(d.tags).some((t) => typeof t === 'string' && t.replace(/^#/, '').toLowerCase() === 'clippings')) return { level: 'outside', why: 'tag clippings' };
  if (listOf(d.categories).some((c) => typeof c === 'string' && /^\[\[clippings(?:\|[^\]]*)?\]\]$/i.test(c.trim()))) return { level: 'outside', why: 'category [[Clippings]]' };
  return { level: 'user', why: 'the user\'s own note' };
}
