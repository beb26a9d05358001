// What the curation commands (and the MCP tools) need for one vault on the Node host: the vault, the proposal
// store under $ENGRAM_HOME, settings from config.json, the LLM backend, and note vectors when the index has them.
import fs from 'node:fs';
import os from 'node:os';
import type { BackendName } from '../../src/core/config.js';
import type { EffectiveConfig } from '../../src/core/config.js';
import type { CurateContext } from '../../src/core/curate/apply.js';
import type { NoteCatalog } from '../../src/core/curate/catalog.js';
import { LexicalVectors } from '../../src/core/curate/lexical-vectors.js';
import { vectorsFromSnapshot } from '../../src/core/curate/index-vectors.js';
import type { NoteVectors } from '../../src/core/curate/merge-candidates.js';
import { Curation } from '../../src/core/curate/service.js';
import { curateSettings, type CurateSettings } from '../../src/core/curate/settings.js';
import { curateStateNames, RecallStatsStore, StateProposalStore } from '../../src/core/curate/stores.js';
import type { LlmBackend } from '../../src/core/extract/backends/types.js';
import { systemClock, yieldToEventLoop, type VaultPort } from '../../src/core/ports.js';
import { foldersFromConfig } from '../../src/core/note/route.js';
import { engramHome, type HostFacts } from '../../src/core/state.js';
import { createBackend } from './backends.js';
import { faultFromEnv, faultTrigger } from './fault.js';
import { loadConfig } from './config-file.js';
import { NodeStateStore } from './node-state-store.js';
import { NodeVault } from './node-vault.js';
import { hostedVault } from './hosted.js';
import { requireVault } from './resolve.js';

export interface CurateHost {
  ctx: CurateContext;
  config: EffectiveConfig;
  vaultRoot: string;
  vaultKey: string;
  snapshotFile: string;
  recallStats: RecallStatsStore;
  state: NodeStateStore;
  /** The vault's proposals folder, relative to $ENGRAM_HOME. */
  proposalsDir: string;
  backend(name?: BackendName): LlmBackend;
}

export function settingsFromConfig(config: EffectiveConfig, actor: string, overrides: Partial<CurateSettings> = {}): CurateSettings {
  return curateSettings({
    ...overrides,
    device: overrides.device ?? (os.hostname().split('.')[0] || 'device'),
    actor,
    folders: foldersFromConfig(config),
  });
}

export function openCurateHost(facts: HostFacts, cwd: string, vaultOption: string | undefined, actor: string, overrides: Partial<CurateSettings> = {}): CurateHost {
  const v = requireVault(facts, cwd, vaultOption);
  const { config } = loadConfig(facts);
  const state = new NodeStateStore(engramHome(facts));
  const names = curateStateNames(v.key);
  const ctx: CurateContext = {
    // Inside the host (a command a client forwarded): the host's own vault port, so it stays the one writer.
    vault: hostedVault(v.realPath) ?? new NodeVault(v.realPath),
    store: new StateProposalStore(state, names.proposals),
    // The MCP bridge runs these commands for an agent: it sets ENGRAM_ACTOR=mcp so the log says who.
    settings: settingsFromConfig(config, facts.env.ENGRAM_ACTOR?.trim() || actor, overrides),
    clock: systemClock,
  };
  const hit = faultTrigger(faultFromEnv(facts.env));
  ctx.fault = () => hit('apply-step');
  return {
    ctx,
    config,
    vaultRoot: v.realPath,
    vaultKey: v.key,
    snapshotFile: v.state.snapshot,
    recallStats: new RecallStatsStore(state, names.recallStats),
    state,
    proposalsDir: names.proposals,
    backend: (name) => createBackend(name ?? config.get('backend'), config, { env: facts.env as NodeJS.ProcessEnv }),
  };
}

/**
 * Note vectors for curation: the index's embeddings when its snapshot offers them per note, else word vectors
 * computed here (says which, so the user knows what "similar" meant).
 */
export async function noteVectors(host: CurateHost, catalog: NoteCatalog, paths: string[], fallback = true): Promise<{ vectors: NoteVectors | undefined; kind: string }> {
  if (fs.existsSync(host.snapshotFile)) {
    try {
      const index = vectorsFromSnapshot(new Uint8Array(fs.readFileSync(host.snapshotFile)));
      if (index) return { vectors: index, kind: `embeddings from the index (${index.modelId ?? 'unknown model'}, ${index.count} notes)` };
    } catch {
      // A damaged or older snapshot: the index rebuilds it; meanwhile word vectors below.
    }
  }
  if (!fallback) return { vectors: undefined, kind: 'no embeddings in the index' };
  return { vectors: new LexicalVectors(catalog, paths), kind: 'word vectors (no embeddings in the index)' };
}

/**
 * The daemon's curation service for its vault (MCP `forget`, recall statistics): the same proposals store, settings
 * and vault log as the curation commands, with `actor` naming who acted in the log.
 */
export function hostCuration(facts: HostFacts, vault: VaultPort, vaultKey: string, config: EffectiveConfig, actor: string): Curation {
  return new Curation({ vault, state: new NodeStateStore(engramHome(facts)), vaultKey, settings: settingsFromConfig(config, actor), clock: systemClock, yieldNow: yieldToEventLoop });
}
