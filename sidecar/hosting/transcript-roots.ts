// Transcripts are read only from the agents' own folders or folders the user configured (invariant 6).
import fs from 'node:fs';
import path from 'node:path';
import type { ConfigReader } from './config-file.js';
import { homeDir } from './facts.js';
import { codexHome } from './paths.js';

export function transcriptRoots(env: NodeJS.ProcessEnv, configured: string[] = []): string[] {
  const home = homeDir(env);
  const roots = [
    path.join(env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), 'projects'),
    path.join(codexHome(env), 'sessions'),
    ...configured.map((c) => path.resolve(c.replace(/^~(?=$|\/)/, home))),
  ];
  return roots.map((r) => {
    try {
      return fs.realpathSync.native(r);
    } catch {
      return r;
    }
  });
}

/** The agents' folders plus `transcripts.extra_folders` from the configuration (a host reads it each time: it may change). */
export function configuredTranscriptRoots(env: NodeJS.ProcessEnv, config: ConfigReader): string[] {
  let extra: string[] = [];
  try {
    extra = config().get('transcripts.extra_folders');
  } catch {
    // An unreadable config.json: the agents' own folders only (doctor reports the file).
  }
  return transcriptRoots(env, extra);
}

/**
 * The real path of a transcript when it lies inside an allowed root (symlinks resolved first, so a link inside
 * the folder that points elsewhere is refused), else undefined.
 */
export function allowedTranscript(file: string, roots: string[]): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(file));
  } catch {
    return undefined;
  }
  if (!fs.statSync(real).isFile()) return undefined;
  for (const root of roots) {
    const rel = path.relative(root, real);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return real;
  }
  return undefined;
}
