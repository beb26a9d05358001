// The vaults Obsidian knows, from its obsidian.json (Linux, macOS, Windows), most recently opened first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { realVaultPath } from '../hosting/paths.js';
import { homeDir } from '../hosting/facts.js';

export interface KnownVault {
  path: string;
  ts: number;
  open: boolean;
  exists: boolean;
}

export function obsidianConfigFiles(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string[] {
  const home = homeDir(env);
  if (platform === 'darwin') return [path.join(home, 'Library', 'Application Support', 'obsidian', 'obsidian.json')];
  if (platform === 'win32') return [path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'obsidian', 'obsidian.json')];
  const xdg = env.XDG_CONFIG_HOME ?? path.join(home, '.config');
  // The Flatpak and Snap builds keep their config inside their sandboxes.
  return [
    path.join(xdg, 'obsidian', 'obsidian.json'),
    path.join(home, '.var', 'app', 'md.obsidian.Obsidian', 'config', 'obsidian', 'obsidian.json'),
    path.join(home, 'snap', 'obsidian', 'current', '.config', 'obsidian', 'obsidian.json'),
  ];
}

export function knownVaults(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): KnownVault[] {
  const out = new Map<string, KnownVault>();
  for (const file of obsidianConfigFiles(env, platform)) {
    let data: { vaults?: Record<string, { path?: unknown; ts?: unknown; open?: unknown }> };
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof data;
    } catch {
      continue;
    }
    for (const v of Object.values(data.vaults ?? {})) {
      if (typeof v.path !== 'string') continue;
      const ts = typeof v.ts === 'number' ? v.ts : 0;
      const prev = out.get(v.path);
      if (!prev || prev.ts < ts) out.set(v.path, { path: v.path, ts, open: v.open === true, exists: fs.existsSync(v.path) });
    }
  }
  return [...out.values()].sort((a, b) => b.ts - a.ts);
}

/** Is an Obsidian process running (best effort, cheap: /proc on Linux, one pgrep or tasklist elsewhere)? */
function obsidianRunning(platform: NodeJS.Platform): boolean {
  try {
    if (platform === 'linux') {
      return fs.readdirSync('/proc').some((pid) => {
        if (!/^\d+$/.test(pid)) return false;
        try {
          return /^obsidian$/i.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
        } catch {
          return false;
        }
      });
    }
    if (platform === 'darwin') return spawnSync('pgrep', ['-x', 'Obsidian'], { timeout: 2000 }).status === 0;
    if (platform === 'win32') return /obsidian\.exe/i.test(spawnSync('tasklist', ['/FI', 'IMAGENAME eq Obsidian.exe', '/NH'], { encoding: 'utf8', timeout: 2000 }).stdout ?? '');
  } catch {
    // Not knowable here: say nothing.
  }
  return false;
}

/**
 * Does Obsidian seem to have this vault open right now? obsidian.json marks the vaults whose windows it restores
 * (also while Obsidian is closed), so an Obsidian process must be running too.
 */
export function obsidianHasVaultOpen(env: NodeJS.ProcessEnv, vault: string, platform: NodeJS.Platform = process.platform): boolean {
  const target = realVaultPath(vault);
  return knownVaults(env, platform).some((v) => v.open && realVaultPath(v.path) === target) && obsidianRunning(platform);
}
