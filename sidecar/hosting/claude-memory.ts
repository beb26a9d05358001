// Claude Code's own auto memory on disk (`<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<project>/memory/*.md`): found and
// read here, read only (never written, moved or disabled), and handed to the core import
// (src/core/memory/claude-memory.ts), which files each as a note. The host runs it at start and on each sweep, reading
// only when a memory folder changed.
import fs from 'node:fs';
import path from 'node:path';
import type { MemoryFile } from '../../src/core/memory/claude-memory.js';
import { homeDir } from './facts.js';
import { projectFor } from './resolve.js';

/** `projects/` of Claude Code's configuration folder. */
function claudeProjects(env: NodeJS.ProcessEnv): string {
  return path.join(env.CLAUDE_CONFIG_DIR ?? path.join(homeDir(env), '.claude'), 'projects');
}

/** The project a Claude Code project folder is for: the cwd its transcripts record, resolved as capture resolves it. */
function projectOf(dir: string): string {
  try {
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.jsonl')).slice(0, 3)) {
      const fd = fs.openSync(path.join(dir, name), 'r');
      try {
        const buf = Buffer.alloc(64 * 1024);
        const head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
        const cwd = /"cwd":"((?:[^"\\]|\\.)*)"/.exec(head)?.[1];
        if (cwd) return projectFor(JSON.parse(`"${cwd}"`) as string).name;
      } finally {
        fs.closeSync(fd);
      }
    }
  } catch {
    // no transcript to ask: the folder's name below
  }
  // `-home-dev-acme` → `acme` (the encoded path's last part).
  return path.basename(dir).split('-').filter(Boolean).pop() ?? path.basename(dir);
}

/** Every memory file, with a signature that changes when any of them does (so an unchanged set is not read again). */
export function claudeMemoryFiles(env: NodeJS.ProcessEnv, since?: string): { signature: string; files?: MemoryFile[] } {
  const root = claudeProjects(env);
  const found: { dir: string; project: string; entries: { name: string; file: string; mtime: number; size: number }[] }[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(root);
  } catch {
    return { signature: '' };
  }
  for (const p of names.sort()) {
    const dir = path.join(root, p, 'memory');
    let files: string[];
    try {
      files = fs.readdirSync(dir).filter((n) => n.toLowerCase().endsWith('.md')).sort();
    } catch {
      continue;
    }
    const entries = files.flatMap((name) => {
      const file = path.join(dir, name);
      const st = fs.statSync(file, { throwIfNoEntry: false });
      return st?.isFile() ? [{ name, file, mtime: st.mtimeMs, size: st.size }] : [];
    });
    if (entries.length) found.push({ dir: path.join(root, p), project: '', entries });
  }
  const signature = found.flatMap((f) => f.entries.map((e) => `${e.file}:${e.mtime}:${e.size}`)).join('\n');
  if (signature === since) return { signature };
  const files: MemoryFile[] = [];
  for (const f of found) {
    const project = projectOf(f.dir);
    for (const e of f.entries) {
      try {
        files.push({ project, source: e.file, name: e.name, text: fs.readFileSync(e.file, 'utf8'), mtime: e.mtime });
      } catch {
        // gone meanwhile: the next sweep sees it
      }
    }
  }
  return { signature, files };
}
