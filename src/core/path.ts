// Path handling for core, which cannot import node:path: the few operations it needs, in POSIX and Windows flavours
// (tests compare them with node's path.posix and path.win32), plus vault-relative paths (always `/`).
import { EngramError } from './errors.js';

export interface PathOps {
  readonly sep: '/' | '\\';
  join(...parts: string[]): string;
  normalize(p: string): string;
  dirname(p: string): string;
  basename(p: string, ext?: string): string;
  extname(p: string): string;
  isAbsolute(p: string): boolean;
}

function isSep(win: boolean, c: string): boolean {
  return c === '/' || (win && c === '\\');
}

/** Splits a Windows path into its root (`C:\`, `C:`, `\\server\share\`, `\`) and the rest; POSIX roots are `/` or ''. */
function splitRoot(win: boolean, p: string): { root: string; rest: string } {
  if (!win) return p.startsWith('/') ? { root: '/', rest: p.slice(1) } : { root: '', rest: p };
  const m = /^([\\/]{2}[^\\/]+[\\/]+[^\\/]+)([\\/]|$)/.exec(p);
  if (m) return { root: `${m[1].replace(/\//g, '\\')}\\`, rest: p.slice(m[0].length) };
  const d = /^([A-Za-z]:)([\\/]?)/.exec(p);
  if (d) return { root: d[1] + (d[2] ? '\\' : ''), rest: p.slice(d[0].length) };
  if (p.length > 0 && isSep(true, p[0])) return { root: '\\', rest: p.slice(1) };
  return { root: '', rest: p };
}

function normalize(win: boolean, p: string): string {
  if (p === '') return '.';
  const sep = win ? '\\' : '/';
  const { root, rest } = splitRoot(win, p);
  const absolute = root.endsWith('/') || root.endsWith('\\');
  const trailing = rest.length > 0 && isSep(win, rest[rest.length - 1]);
  const out: string[] = [];
  for (const seg of rest.split(win ? /[\\/]+/ : /\/+/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(seg);
  }
  let body = out.join(sep);
  if (body === '' && !absolute) body = '.';
  if (body !== '' && body !== '.' && trailing) body += sep;
  if (body === '.' && trailing && root === '') body = `.${sep}`;
  return root + body;
}

/**
 * Where a Windows path's root ends (`rootEnd`, -1 with none) and where dirname's backward scan stops (`offset`);
 * `whole` when the path is a UNC root alone (its own dirname). Node's algorithm, literally.
 */
function win32DirRoot(p: string): { rootEnd: number; offset: number } | 'whole' {
  const len = p.length;
  if (isSep(true, p[0])) {
    let rootEnd = 1;
    let offset = 1;
    if (isSep(true, p[1])) {
      let j = 2;
      let last = j;
      while (j < len && !isSep(true, p[j])) j++;
      if (j < len && j !== last) {
        last = j;
        while (j < len && isSep(true, p[j])) j++;
        if (j < len && j !== last) {
          last = j;
          while (j < len && !isSep(true, p[j])) j++;
          if (j === len) return 'whole';
          if (j !== last) rootEnd = offset = j + 1;
        }
      }
    }
    return { rootEnd, offset };
  }
  if (/^[A-Za-z]:/.test(p)) {
    const rootEnd = len > 2 && isSep(true, p[2]) ? 3 : 2;
    return { rootEnd, offset: rootEnd };
  }
  return { rootEnd: -1, offset: 0 };
}

// dirname and basename follow node's algorithms literally: they keep the input's own separators and root.
function dirname(win: boolean, p: string): string {
  const len = p.length;
  if (len === 0) return '.';
  let rootEnd = -1;
  let offset = 1;
  if (win) {
    if (len === 1) return isSep(true, p[0]) ? p : '.';
    const root = win32DirRoot(p);
    if (root === 'whole') return p;
    ({ rootEnd, offset } = root);
  }
  let end = -1;
  let matchedSlash = true;
  for (let i = len - 1; i >= offset; --i) {
    if (isSep(win, p[i])) {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else matchedSlash = false;
  }
  if (!win) {
    const hasRoot = p[0] === '/';
    if (end === -1) return hasRoot ? '/' : '.';
    if (hasRoot && end === 1) return '//';
    return p.slice(0, end);
  }
  if (end === -1) {
    if (rootEnd === -1) return '.';
    end = rootEnd;
  }
  return p.slice(0, end);
}

function basename(win: boolean, p: string, ext?: string): string {
  const from = win && /^[A-Za-z]:/.test(p) ? 2 : 0;
  let end = p.length;
  while (end > from && isSep(win, p[end - 1])) end--;
  let start = end;
  while (start > from && !isSep(win, p[start - 1])) start--;
  const base = p.slice(start, end);
  if (ext && base !== ext && base.endsWith(ext)) return base.slice(0, base.length - ext.length);
  return base;
}

function extname(win: boolean, p: string): string {
  const base = basename(win, p);
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || /^\.+$/.test(base)) return '';
  return base.slice(dot);
}

function isAbsolute(win: boolean, p: string): boolean {
  if (!win) return p.startsWith('/');
  return /^[\\/]/.test(p) || /^[A-Za-z]:[\\/]/.test(p);
}

function make(win: boolean): PathOps {
  const sep = win ? '\\' : '/';
  return {
    sep,
    join: (...parts) => {
      const kept = parts.filter((x) => x.length > 0);
      return kept.length === 0 ? '.' : normalize(win, kept.join(sep));
    },
    normalize: (p) => normalize(win, p),
    dirname: (p) => dirname(win, p),
    basename: (p, ext) => basename(win, p, ext),
    extname: (p) => extname(win, p),
    isAbsolute: (p) => isAbsolute(win, p),
  };
}

export const posixPath: PathOps = make(false);
export const win32Path: PathOps = make(true);

/** The path flavour of a Node `process.platform` value. */
export function pathOpsFor(platform: string): PathOps {
  return platform === 'win32' ? win32Path : posixPath;
}

/**
 * Checks and normalises a vault-relative path: forward slashes, no leading slash, no `.`/`..` segments,
 * no drive letters or NUL. Anything that could point outside the vault is refused (invariant 6).
 */
export function vaultPath(p: string): string {
  const bad = (why: string) => new EngramError('refused', `not a path inside the vault (${why}): ${JSON.stringify(p)}`);
  if (p.length === 0) throw bad('empty');
  if (p.includes('\0')) throw bad('NUL character');
  const s = p.replace(/\\/g, '/');
  if (s.startsWith('/') || /^[A-Za-z]:/.test(s)) throw bad('absolute');
  const segs = s.split('/').filter((x) => x !== '' && x !== '.');
  if (segs.length === 0) throw bad('empty');
  if (segs.some((x) => x === '..')) throw bad('`..` segment');
  return segs.join('/');
}

/** Folder part of a vault path (`''` at the vault root). */
export function vaultDirname(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** Last segment of a vault path. */
export function vaultBasename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Joins vault path segments, ignoring empty ones. */
export function vaultJoin(...parts: string[]): string {
  return vaultPath(parts.filter((x) => x !== '').join('/'));
}
