// Resolves link paths to notes the way Obsidian does: case-insensitive, by file name when it is unique,
// by the shortest matching path otherwise, preferring the linking note's own folder; and writes link paths
// back in Obsidian's "shortest path when possible" style.

function fold(s: string): string {
  return s.normalize('NFC').toLowerCase();
}

function stripMd(p: string): string {
  return p.toLowerCase().endsWith('.md') ? p.slice(0, -3) : p;
}

function folderOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

function baseOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Joins a relative link path (`./x`, `../x`) onto a folder; null when it climbs out of the vault. */
function joinRelative(folder: string, rel: string): string | null {
  const out = folder === '' ? [] : folder.split('/');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

export class LinkResolver {
  /** folded path without `.md` → path */
  private readonly byPath = new Map<string, string>();
  /** folded base name without `.md` → paths */
  private readonly byName = new Map<string, string[]>();

  constructor(paths: Iterable<string>) {
    for (const p of paths) this.add(p);
  }

  add(path: string): void {
    const key = fold(stripMd(path));
    if (this.byPath.has(key)) return;
    this.byPath.set(key, path);
    const name = fold(stripMd(baseOf(path)));
    const list = this.byName.get(name);
    if (list) list.push(path);
    else this.byName.set(name, [path]);
  }

  remove(path: string): void {
    const key = fold(stripMd(path));
    const real = this.byPath.get(key);
    if (real === undefined) return;
    this.byPath.delete(key);
    const name = fold(stripMd(baseOf(real)));
    const list = this.byName.get(name)?.filter((p) => p !== real) ?? [];
    if (list.length) this.byName.set(name, list);
    else this.byName.delete(name);
  }

  /** A copy with some notes removed and others added (the vault as it will be after a change). */
  with(change: { remove?: Iterable<string>; add?: Iterable<string> }): LinkResolver {
    const next = new LinkResolver([]);
    for (const [k, v] of this.byPath) next.byPath.set(k, v);
    for (const [k, v] of this.byName) next.byName.set(k, [...v]);
    for (const p of change.remove ?? []) next.remove(p);
    for (const p of change.add ?? []) next.add(p);
    return next;
  }

  has(path: string): boolean {
    return this.byPath.has(fold(stripMd(path)));
  }

  /** The note a link path names, seen from `sourcePath`; an empty link path is the source itself. */
  resolve(linkpath: string, sourcePath: string): string | null {
    const trimmed = linkpath.trim();
    if (trimmed === '') return sourcePath;
    const wanted = fold(stripMd(trimmed.replace(/\\/g, '/')));
    const folder = folderOf(sourcePath);
    if (wanted.startsWith('./') || wanted.startsWith('../')) {
      const joined = joinRelative(fold(folder), wanted);
      return joined === null ? null : (this.byPath.get(joined) ?? null);
    }
    const exact = this.byPath.get(wanted.replace(/^\/+/, ''));
    if (exact !== undefined) return exact;
    const name = baseOf(wanted);
    const candidates = this.byName.get(name);
    if (!candidates) return null;
    const suffix = wanted.includes('/') ? `/${wanted}` : null;
    const matching = suffix ? candidates.filter((p) => `/${fold(stripMd(p))}`.endsWith(suffix)) : candidates;
    if (matching.length === 0) return null;
    if (matching.length === 1) return matching[0];
    const local = matching.find((p) => folderOf(p) === folder);
    if (local) return local;
    return [...matching].sort((a, b) => a.split('/').length - b.split('/').length || a.length - b.length || (a < b ? -1 : 1))[0];
  }

  /**
   * The link path to write for `targetPath` from `sourcePath`: the bare name when it resolves to the
   * target from there, else the full path without `.md`.
   */
  linkpathFor(targetPath: string, sourcePath: string): string {
    const name = stripMd(baseOf(targetPath));
    if (this.resolve(name, sourcePath) === targetPath) return name;
    return stripMd(targetPath);
  }
}
