// Curation for one vault on Node: the core `Curation` with the proposal store under $ENGRAM_HOME, settings from
// config.json, the configured LLM backend and the crash switch. The daemon's takes note vectors from its live index;
// the CLI's (no host running) from the index snapshot on disk.
import fs from 'node:fs';
import os from 'node:os';
import type { EffectiveConfig } from '../../src/core/config.js';
import { vectorsFromSnapshot } from '../../src/core/curate/index-vectors.js';
import { Curation, type VectorSource } from '../../src/core/curate/service.js';
import { curateSettings, type CurateSettings } from '../../src/core/curate/settings.js';
import type { IndexNoteVectors } from '../../src/core/index/note-vectors.js';
import { systemClock, yieldToEventLoop, type VaultPort } from '../../src/core/ports.js';
import { foldersFromConfig } from '../../src/core/note/route.js';
import { engramHome, type HostFacts } from '../../src/core/state.js';
import { createBackend } from './backends.js';
import { faultFromEnv, faultTrigger } from './fault.js';
import { loadConfig } from './config-file.js';
import { NodeStateStore } from './node-state-store.js';
import { NodeVault } from './node-vault.js';
import { requireVault } from './resolve.js';

export function settingsFromConfig(config: EffectiveConfig, actor: string, overrides: Partial<CurateSettings> = {}): CurateSettings {
  return curateSettings({
    ...overrides,
    device: overrides.device ?? (os.hostname().split('.')[0] || 'device'),
    actor,
    folders: foldersFromConfig(config),
  });
}

/** What the user is told "close in meaning" was measured with. */
export function describeVectors(v: IndexNoteVectors | null | undefined): VectorSource | undefined {
  return v ? { vectors: v, kind: `embeddings from the index (${v.modelId ?? 'unknown model'}, ${v.count} notes)` } : undefined;
}

function curationFor(facts: HostFacts, vault: VaultPort, vaultKey: string, config: EffectiveConfig, actor: string, vectors: () => VectorSource | undefined): Curation {
  const hit = faultTrigger(faultFromEnv(facts.env));
  return new Curation({
    vault,
    state: new NodeStateStore(engramHome(facts)),
    vaultKey,
    settings: settingsFromConfig(config, actor),
    clock: systemClock,
    yieldNow: yieldToEventLoop,
    backend: (name) => createBackend(name ?? config.get('backend'), config, { env: facts.env as NodeJS.ProcessEnv }),
    vectors,
    fault: () => hit('apply-step'),
  });
}

/** The daemon's curation: its own vault port (the one writer) and its live index's vectors. */
export function hostCuration(facts: HostFacts, vault: VaultPort, vaultKey: string, config: EffectiveConfig, actor: string, vectors: () => IndexNoteVectors | null | undefined): Curation {
  return curationFor(facts, vault, vaultKey, config, actor, () => describeVectors(vectors()));
}

/**
 * The CLI's curation when no host runs: the vault on disk, and the vectors of the index snapshot when it has them
 * (a damaged or older snapshot gives none; the index rebuilds it).
 */
export function localCuration(facts: HostFacts, cwd: string, vaultOption: string | undefined, actor: string): Curation {
  const v = requireVault(facts, cwd, vaultOption);
  const { config } = loadConfig(facts);
  let cached: VectorSource | undefined | null = null;
  const fromSnapshot = (): VectorSource | undefined => {
    if (cached !== null) return cached;
    cached = undefined;
    if (fs.existsSync(v.state.snapshot)) {
      try {
        cached = describeVectors(vectorsFromSnapshot(new Uint8Array(fs.readFileSync(v.state.snapshot))));
      } catch {
        // A damaged or older snapshot: the index rebuilds it; meanwhile curation compares words.
      }
    }
    return cached;
  };
  return curationFor(facts, new NodeVault(v.realPath), v.key, config, actor, fromSnapshot);
}
