// Curation for one vault on Node: the core `Curation` with the proposal store under $ENGRAM_HOME, settings from
// config.json, the configured LLM backend and the crash switch. The daemon's engine builds its own from this setup
// (vectors from its live index); the CLI's (no host running) takes vectors from the index snapshot on disk.
import fs from 'node:fs';
import type { EffectiveConfig } from '../../src/core/config.js';
import { vectorsFromSnapshot } from '../../src/core/curate/index-vectors.js';
import { Curation, describeIndexVectors, type CurationOptions, type VectorSource } from '../../src/core/curate/service.js';
import { curateSettings } from '../../src/core/curate/settings.js';
import { systemClock, yieldToEventLoop } from '../../src/core/ports.js';
import { foldersFromConfig } from '../../src/core/note/route.js';
import { engramHome, type HostFacts } from '../../src/core/state.js';
import { createBackend } from './backends.js';
import { thisDevice } from './device.js';
import { faultFromEnv, faultTrigger } from './fault.js';
import { loadConfig } from './config-file.js';
import { NodeStateStore } from './node-state-store.js';
import { NodeVault } from './node-vault.js';
import { requireVault } from './resolve.js';
import { recordDevice } from './vault-lease.js';

/** Curation's setup on Node: the proposal store under $ENGRAM_HOME, settings from config.json, the backend, the crash switch. */
export function curationSetup(facts: HostFacts, vaultKey: string, config: EffectiveConfig, actor: string): Omit<CurationOptions, 'vault' | 'clock' | 'yieldNow' | 'vectors'> {
  const hit = faultTrigger(faultFromEnv(facts.env));
  return {
    state: new NodeStateStore(engramHome(facts)),
    vaultKey,
    // One log note per device and month: this machine's device name (its host name and its stable device id).
    settings: curateSettings({
      device: thisDevice(engramHome(facts)).name,
      actor,
      folders: foldersFromConfig(config),
      mergeConfidence: config.get('curate.merge_confidence') / 100,
    }),
    backend: (name) => createBackend(name ?? config.get('backend'), config, { env: facts.env as NodeJS.ProcessEnv }),
    fault: () => hit('apply-step'),
  };
}

/**
 * The CLI's curation when no host runs: the vault on disk, and the vectors of the index snapshot when it has them
 * (a damaged or older snapshot gives none; the index rebuilds it).
 */
export function localCuration(facts: HostFacts, cwd: string, vaultOption: string | undefined, actor: string): Curation {
  const v = requireVault(facts, cwd, vaultOption);
  const { config } = loadConfig(facts);
  // Curation here writes this device's change log: its record beside the lease tells other machines whether the
  // sync carries `.engram/` (vault-lease.ts, unseenDevices).
  try {
    recordDevice(v.realPath, thisDevice(engramHome(facts)));
  } catch {
    // A vault that cannot be written: the apply says so.
  }
  let cached: VectorSource | undefined | null = null;
  const fromSnapshot = (): VectorSource | undefined => {
    if (cached !== null) return cached;
    cached = undefined;
    if (fs.existsSync(v.state.snapshot)) {
      try {
        cached = describeIndexVectors(vectorsFromSnapshot(new Uint8Array(fs.readFileSync(v.state.snapshot))));
      } catch {
        // A damaged or older snapshot: the index rebuilds it; meanwhile curation compares words.
      }
    }
    return cached;
  };
  return new Curation({ ...curationSetup(facts, v.key, config, actor), vault: new NodeVault(v.realPath), clock: systemClock, yieldNow: yieldToEventLoop, vectors: fromSnapshot });
}
