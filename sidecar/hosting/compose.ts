// The one composition of a vault's engine on Node, for every road to it: the daemon and the Obsidian plugin (open-host.ts)
// and the CLI's in-process host when none is live (in-process.ts) hand the engine the same ports, curation, capture and
// configuration, so a method answers alike on each.
import { Engine, type EngineIndex } from '../../src/core/engine.js';
import { ActivityRecord, activityFile } from '../../src/core/activity/record.js';
import type { EffectiveConfig } from '../../src/core/config.js';
import type { TranscriptExtractor } from '../../src/core/capture/session-jobs.js';
import type { CurationOptions } from '../../src/core/curate/service.js';
import { curateSettings } from '../../src/core/curate/settings.js';
import { foldersFromConfig } from '../../src/core/note/route.js';
import { systemClock, type VaultPort, type Yield } from '../../src/core/ports.js';
import { engramHome, type HostFacts } from '../../src/core/state.js';
import { createBackend } from './backends.js';
import type { ConfigReader } from './config-file.js';
import { CoverageStore } from './coverage.js';
import { thisDevice } from './device.js';
import { hostFacts } from './facts.js';
import type { FaultHit } from './fault.js';
import type { Logger } from './logger.js';
import { NodeStateStore } from './node-state-store.js';
import { VAULT_IGNORED_DIRS, type VaultState } from './paths.js';
import { nodeTranscripts } from './session-jobs.js';
import { settingsOf } from './settings.js';
import { DEFER_AGE_MS, spoolPort } from './spool.js';
import { configuredTranscriptRoots } from './transcript-roots.js';
import { yieldImmediate } from './yield.js';

/** Curation's setup on Node: the proposal store under $ENGRAM_HOME, settings from config.json, the backend, the crash switch. */
export function curationSetup(facts: HostFacts, vaultKey: string, config: EffectiveConfig, actor: string, fault: FaultHit): Omit<CurationOptions, 'vault' | 'clock' | 'yieldNow' | 'vectors'> {
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
    // Obsidian's config folder as it ships (its Templates and Templater settings name the templates folders).
    configDir: '.obsidian',
    fault: () => fault('apply-step'),
  };
}

export interface ComposeOptions {
  state: VaultState;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The configuration as it is now: the engine's folders and curation from it at the start, the rest per use. */
  config: ConfigReader;
  /** The host's crash switch, read once at its start. */
  fault: FaultHit;
  /** The vault as this host writes it: the fs adapter or Obsidian's API. */
  vault: VaultPort;
  /** The real index when this build has one; the engine's built-in BM25 otherwise. */
  index?: EngineIndex;
  yieldNow?: Yield;
  /** How long deferred events wait before they are retried (default an hour). */
  deferRetryMs?: number;
  /** Holds each session job open this long before it runs (tests). */
  jobDelayMs?: number;
}

export interface ComposedEngine {
  engine: Engine;
  /** The configuration the engine was composed from (read once, at the host's start). */
  config: EffectiveConfig;
  coverage: CoverageStore;
  /** The extractor dedups through the engine's index, so the host hands it in once the engine exists. */
  setExtractor(extractor: TranscriptExtractor): void;
}

/** The engine of one vault with its Node ports: curation, capture over the spool, persistence, configured folders. */
export function composeEngine(opts: ComposeOptions): ComposedEngine {
  const { state, env, log, vault } = opts;
  const facts = hostFacts(env);
  const config = opts.config();
  const coverage = new CoverageStore(engramHome(facts), state.key);
  // What this vault's sessions were given and what was captured from them (`engram activity`), beside the other logs.
  const activity = new ActivityRecord(new NodeStateStore(engramHome(facts)), activityFile(state.key), systemClock, log, opts.yieldNow);
  let extractor: TranscriptExtractor = async () => ({ notes: 0, outcome: 'no extractor available in this build' });
  const engine = new Engine({
    ports: { vault, clock: systemClock, yieldNow: opts.yieldNow ?? yieldImmediate },
    index: opts.index,
    log,
    // Agents reach curation through MCP: the vault's Engram log names `mcp` unless a request says who.
    curation: curationSetup(facts, state.key, config, 'mcp', opts.fault),
    capture: {
      coverage,
      transcripts: nodeTranscripts(() => configuredTranscriptRoots(env, opts.config)),
      spool: spoolPort(state, env, opts.deferRetryMs ?? DEFER_AGE_MS, log),
      extractor: (req) => extractor(req),
      // Read per job: a threshold changed through `configure` applies at once.
      thresholds: () => {
        const s = settingsOf(opts.config());
        return { turns: s.stop_min_new_turns, bytes: s.stop_min_new_bytes };
      },
      log,
      hold: opts.jobDelayMs ? () => new Promise((r) => setTimeout(r, opts.jobDelayMs)) : undefined,
      activity: (e) => activity.add(e),
    },
    activity,
    persist: { store: new NodeStateStore(engramHome(facts)), dir: `vaults/${state.key}` },
    config: {
      ignore: [...VAULT_IGNORED_DIRS],
      folders: {
        inbox: config.get('folders.inbox'),
        projects: config.get('folders.projects'),
        working: config.get('folders.working_memory'),
        archive: config.get('folders.archive'),
        log: config.get('folders.log'),
      },
      trust: { outsideFolders: config.get('recall.outside_folders'), trustedFolders: config.get('recall.trusted_folders') },
      privateZones: { folders: config.get('privacy.private_folders'), tags: config.get('privacy.private_tags'), projects: config.get('privacy.private_projects') },
    },
  });
  return { engine, coverage, config, setExtractor: (x) => (extractor = x) };
}
