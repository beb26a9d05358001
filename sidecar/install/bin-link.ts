// `engram` on PATH the way CLI tools usually are: a link in the user's bin folder (`~/.local/bin` on Linux and
// macOS) to the stable shim, plus the exact line to add where that folder is not on PATH. `uninstall` removes it.
import fs from 'node:fs';
import path from 'node:path';
import { homeDir } from '../hosting/facts.js';

export interface BinLink {
  /** The link (`~/.local/bin/engram`); undefined on Windows, where the shim's folder goes on PATH instead. */
  link?: string;
  status: 'added' | 'unchanged' | 'skipped';
  /** Why a link was not made (another file of that name is there). */
  reason?: string;
  /** Is the link's folder on this process's PATH? */
  onPath: boolean;
  /** The command that puts the folder on PATH for new terminals, when it is not. */
  pathHint?: string;
}


export function userBinDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  return platform === 'win32' ? undefined : path.join(homeDir(env), '.local', 'bin');
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

export function dirOnPath(dir: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(path.delimiter).some((p) => p && samePath(p, dir));
}

/** The line that puts `dir` on PATH for the user's shell, and where it goes. */
export function pathHint(dir: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const home = homeDir(env);
  const shown = dir.startsWith(`${home}${path.sep}`) ? `$HOME/${path.relative(home, dir)}` : dir;
  const shell = path.basename(env.SHELL ?? '');
  if (shell === 'fish') return `fish_add_path ${shown.replace('$HOME', '~')}`;
  const rc = shell === 'zsh' ? '~/.zshrc' : shell === 'bash' ? (platform === 'darwin' ? '~/.bash_profile' : '~/.bashrc') : '~/.profile';
  return `echo 'export PATH="${shown}:$PATH"' >> ${rc}`;
}

function readLink(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}

/** Links `~/.local/bin/engram` to the shim (never replacing a file that is not our link). */
export function linkOnPath(env: NodeJS.ProcessEnv, shim: string): BinLink {
  const dir = userBinDir(env);
  if (!dir) {
    const shimDir = path.dirname(shim);
    const onPath = dirOnPath(shimDir, env);
    return { status: 'skipped', reason: 'Windows: put the shim\'s folder on PATH', onPath, pathHint: onPath ? undefined : `setx PATH "%PATH%;${shimDir}"` };
  }
  const link = path.join(dir, 'engram');
  const onPath = dirOnPath(dir, env);
  const hint = onPath ? undefined : pathHint(dir, env);
  const current = readLink(link);
  if (current !== undefined && path.resolve(dir, current) === shim) return { link, status: 'unchanged', onPath, pathHint: hint };
  if (current !== undefined || fs.existsSync(link)) {
    // Someone else's `engram` (or a link to another ENGRAM_HOME's shim): leave it, and say so.
    return { link, status: 'skipped', reason: `${link} exists and is not Engram's link to ${shim}; leaving it`, onPath, pathHint: hint };
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(shim, link);
  return { link, status: 'added', onPath, pathHint: hint };
}

/** Removes the link when it is ours (points at this shim). */
export function unlinkFromPath(env: NodeJS.ProcessEnv, shim: string): string | undefined {
  const dir = userBinDir(env);
  if (!dir) return undefined;
  const link = path.join(dir, 'engram');
  const current = readLink(link);
  if (current === undefined || path.resolve(dir, current) !== shim) return undefined;
  fs.rmSync(link, { force: true });
  return link;
}

/** Lines for the user: where `engram` now is, and what to add to PATH when its folder is not there. */
export function describeLink(l: BinLink): string[] {
  const out: string[] = [];
  if (l.link && l.status !== 'skipped') out.push(`\`engram\` command: ${l.link} (${l.status})`);
  else if (l.reason) out.push(`\`engram\` command: not linked (${l.reason})`);
  if (l.pathHint) {
    out.push(`   ${l.link ? path.dirname(l.link) : 'its folder'} is not on your PATH; add it for new terminals with:`);
    out.push(`     ${l.pathHint}`);
  }
  return out;
}
