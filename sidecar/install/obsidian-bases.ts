// `engram setup`'s Bases step: when the vault's Obsidian has the Bases core plugin, write Engram's `.base` views
// (src/core/note/bases.ts) into the Engram folder. A view already there is the user's now: never overwritten.
import fs from 'node:fs';
import path from 'node:path';
import { basesPlugin, engramBases } from '../../src/core/note/bases.js';
import { atomicWriteFileSync } from '../hosting/atomic-write.js';

export interface BasesStep {
  plugin: 'on' | 'off' | 'absent';
  written: string[];
  kept: string[];
}

/** The Bases core plugin's state in the vault's Obsidian settings (`.obsidian/core-plugins.json`). */
export function vaultBases(vault: string): 'on' | 'off' | 'absent' {
  let text: string | null = null;
  try {
    text = fs.readFileSync(path.join(vault, '.obsidian', 'core-plugins.json'), 'utf8');
  } catch {
    // No Obsidian settings yet: not known to have Bases.
  }
  return basesPlugin(text);
}

/** Writes the views that are not there yet (vault-relative paths returned); `write: false` only says what it would do. */
export function writeBases(vault: string, folders: { inbox: string; working: string; archive: string }, opts: { write: boolean; staleDays?: number }): BasesStep {
  const root = folders.inbox.split('/')[0] || 'Engram';
  const step: BasesStep = { plugin: vaultBases(vault), written: [], kept: [] };
  for (const [name, text] of Object.entries(engramBases({ root, working: folders.working, archive: folders.archive }, opts.staleDays))) {
    const rel = `${root}/${name}`;
    const file = path.join(vault, ...rel.split('/'));
    if (fs.existsSync(file)) {
      step.kept.push(rel);
      continue;
    }
    if (opts.write) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      atomicWriteFileSync(file, text);
    }
    step.written.push(rel);
  }
  return step;
}
