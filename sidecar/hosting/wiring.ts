// Plugs the real pieces into a host (the daemon or the plugin): the VaultIndex (snapshot, hybrid search, local embeddings when a model is
// present) and the transcript extractor. The engine falls back to its built-in BM25 when the index cannot load.
import fs from 'node:fs';
import { IndexedVault, type EngineIndex, type Engine } from '../../src/core/engine.js';
import type { SearchHit, SearchOptions } from '../../src/core/index/types.js';
import { VaultIndex, type IndexProgress } from '../../src/core/index/vault-index.js';
import { EngramError, errorMessage } from '../../src/core/errors.js';
import type { Embedder, VaultPort, Yield } from '../../src/core/ports.js';
import type { EffectiveConfig } from '../../src/core/config.js';
import type { ModelState } from './embedder.js';
import type { VaultState } from './paths.js';
import { hostFacts } from './facts.js';
import type { Logger } from './logger.js';
import type { TranscriptExtractor } from '../../src/core/capture/session-jobs.js';
import type { FaultHit } from './fault.js';
import type { ConfigReader } from './config-file.js';
import { atomicWriteFile } from './atomic-write.js';
import { yieldImmediate } from './yield.js';
import { citedNotes } from '../../src/core/activity/usage.js';

/** Where a host's embeddings come from: the daemon loads the local model itself, the plugin asks its embedding child. */
export type EmbedderSource = () => Promise<Embedder | undefined>;

/** The local embedding model in this process (never the network); none when no model is present. */
export function localEmbedder(config: EffectiveConfig, home: string, log: Logger): EmbedderSource {
  return async () => {
    const { configuredModel, loadEmbedder } = await import('./embedder.js');
    const loc = configuredModel(config, home);
    if (!loc.dir) {
      log('info', 'no embedding model present: BM25 only (run `engram model pull` for hybrid search)');
      return undefined;
    }
    return loadEmbedder(loc.dir, { modelId: loc.id });
  };
}

/** What a host hands the index and the extractor it makes: its vault port, its log and its crash switch. */
export type IndexMaker = (vault: VaultPort, log: Logger, fault: FaultHit) => Promise<EngineIndex>;
export type ExtractorMaker = (engine: Engine, vault: VaultPort, fault: FaultHit) => Promise<TranscriptExtractor>;

/** The VaultIndex over the host's vault port, its snapshot in the vault's state folder, embeddings when there are. */
export interface IndexChoices {
  /** Attached once the text index is up (a long-running host: recall works on BM25 at once). */
  embedder?: EmbedderSource;
  /** The model loaded beforehand and in use from the start, or why there is none (the CLI's own host: resolveModel). */
  model?: ModelState;
  onProgress?: (p: IndexProgress) => void;
  /** How long work gives the event loop a turn (the plugin: Obsidian's UI). */
  yieldNow?: Yield;
  /** Open without the snapshot: every note indexed again. */
  rebuild?: boolean;
}

export function indexMaker(state: VaultState, choices: IndexChoices = {}): IndexMaker {
  const { embedder, model, onProgress, yieldNow, rebuild } = choices;
  return async (vault, log, hit) => {
    const index = new VaultIndex({ vault, onProgress, embedder: model?.embedder, yieldNow: yieldNow ?? yieldImmediate });
    const snapshot = {
      read: async () => new Uint8Array(await fs.promises.readFile(state.snapshot)),
      // The one atomic write (node/atomic-write.ts): a reader sees the old snapshot or the new one, whole.
      write: (bytes: Uint8Array) => atomicWriteFile(state.snapshot, bytes, { mode: 0o600, beforeRename: () => hit('before-snapshot-rename') }),
    };
    // After the text index is up: recall works on BM25 at once, and turns hybrid when the vectors are ready.
    const attach = async () => {
      const e = await embedder?.();
      if (!e) return;
      index.setEmbedder(e);
      const n = await index.embedPending();
      log('info', `embeddings: ${e.modelId}, ${n} chunks embedded`);
    };
    const afterOpen = embedder ? () => void attach().catch((e) => log('warn', `embeddings unavailable: ${errorMessage(e)}`)) : undefined;
    return new IndexedVault(index, { snapshot, log, afterOpen, rebuild, modelProblem: model?.problem });
  };
}

/**
 * Dedup asks the vault index for candidates (BM25 and, with a model, meaning) across the whole vault; archived notes
 * are out of it, so a beat never extends a note that was forgotten.
 */
export function dedupSearch(engine: Engine): (query: string, opts: SearchOptions) => Promise<SearchHit[]> {
  return async (query, opts) => {
    await engine.whenReady();
    return engine.search(query, opts);
  };
}

/** Extraction in this host: notes written through the host's vault port, dedup through the live index. */
export function extractorMaker(state: VaultState, env: NodeJS.ProcessEnv, config: ConfigReader): ExtractorMaker {
  return async (engine, vault, fault) => extractorFor(engine, vault, fault, state, env, config);
}

async function extractorFor(engine: Engine, vault: VaultPort, fault: FaultHit, state: VaultState, env: NodeJS.ProcessEnv, config: ConfigReader): Promise<TranscriptExtractor> {
  const runner = await import('./extract-runner.js');
  const facts = hostFacts(env);
  const search = dedupSearch(engine);
  return async (req) => {
    // Background mode (the daily budget applies); a forced backend is setup's offline `rules` pass.
    // The configuration as it is for this job: a backend or budget changed since the start applies to it.
    const ctx = { facts, config: config(), vaultRoot: state.vault, vaultKey: state.key, vault, mode: 'background' as const, search, fault, ...(req.backend ? { backend: req.backend } : {}) };
    const host = runner.extractHost(ctx);
    const session = await runner.readTranscriptFile(req.transcriptPath, { keepEmails: host.config.get('extract.keep_emails') });
    if (req.project && !session.meta.project) session.meta.project = req.project;
    if (req.cwd && !session.meta.cwd) session.meta.cwd = req.cwd;
    const run = await runner.extractParsedSession(ctx, host, session);
    const notes = run.beats.created + run.beats.extended;
    // What the activity record keeps of the run: each window's call and each beat filed or proposed.
    // And whether the assistant named the notes injected into the session (usage.ts), and the secrets redacted.
    const injected = engine.activity ? (await engine.activity.read({ session: req.sessionId, kinds: ['inject'] })).entries.flatMap((e) => (e.kind === 'inject' ? e.notes : [])) : [];
    const cited = citedNotes(injected, session.turns.filter((t) => t.role === 'assistant').map((t) => t.text));
    const redactions = session.stats?.redactions ?? {};
    const seen = {
      agent: session.meta.agent,
      windows: run.calls ?? [],
      beats: run.notes.map((n) => ({ path: n.path, title: n.title, type: n.type, action: n.action, ...(n.proposal ? { proposal: n.proposal } : {}) })),
      ...(cited.length ? { cited } : {}),
      ...(Object.keys(redactions).length ? { redactions } : {}),
    };
    // Stopped by the budget, or another process holds the session: keep the event for later, not "covered".
    if (run.budgetStopped) return { ...seen, notes, outcome: `deferred: ${run.budgetStopped}`, deferred: true };
    if (run.skippedKind === 'busy') return { ...seen, notes, outcome: `deferred: ${run.skipped}`, deferred: true };
    // Failed windows stay pending (not covered) and are retried after a backoff; the queue moves on to other sessions.
    if (run.waiting) return { ...seen, notes, outcome: `deferred: ${run.waiting}`, deferred: true };
    if (run.failed.length) return { ...seen, notes, outcome: `deferred: ${run.windows.notDone} window${run.windows.notDone === 1 ? '' : 's'} pending (${run.failed[0].reason})${run.pending ? `; next try after ${run.pending.retryAt}` : ''}`, deferred: true, retryAt: run.pending?.retryAt };
    const outcome = run.skipped ?? (run.errors.length ? `extracted with errors: ${run.errors[0]}` : `extracted ${notes} notes${run.beats.proposed ? `, ${run.beats.proposed} held for review` : ''}${req.backend ? ` (${req.backend})` : ''}`);
    if (run.windows.notDone > 0) throw new EngramError('backend', outcome);
    return { ...seen, notes, outcome };
  };
}
