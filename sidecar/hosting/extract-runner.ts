// Extraction on the Node host: reads a transcript file, wires the vault, the state files, the backend, git
// awareness and fault injection, and runs the core pipeline. A host's job queue and its `extract.run` call this.
import { capturePolicy } from '../../src/core/capture/mode.js';
import type { ExtractWindowOptions } from '../../src/core/extract/window.js';
import { removeTempLeftovers } from './temp-files.js';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { BACKENDS, CONFIG_KEYS, type EffectiveConfig, type BackendName } from '../../src/core/config.js';
import { EngramError } from '../../src/core/errors.js';
import { BackendError } from '../../src/core/extract/backends/backend-error.js';
import { extractSession, type ExtractRun } from '../../src/core/extract/extract.js';
import type { PendingWindows } from '../../src/core/extract/journal.js';
import { indexSimilarity } from '../../src/core/extract/dedup.js';
import { VaultCatalog } from '../../src/core/extract/vault-catalog.js';
import type { SearchHit, SearchOptions } from '../../src/core/index/types.js';
import type { LlmBackend } from '../../src/core/extract/backends/types.js';
import { describeBudget, usageSummary, type BudgetConfig, type UsageSummary } from '../../src/core/extract/usage.js';
import type { StateStore } from '../../src/core/extract/state-store.js';
import type { EngramSourceKind } from '../../src/core/extract/note-writer.js';
import { systemClock, type VaultPort } from '../../src/core/ports.js';
import { detectFormat, readSession } from '../../src/core/transcript/detect.js';
import type { Session } from '../../src/core/transcript/types.js';
import { engramHome, type HostFacts } from '../../src/core/state.js';
import { backendEntry, createBackend } from './backends.js';
import { faultFromEnv, faultTrigger, type FaultPoint } from './fault.js';
import { NodeStateStore } from './node-state-store.js';
import { NodeVault } from './node-vault.js';
import { setSessionProject } from './resolve.js';

/** Git is busy while it holds its index lock or is in the middle of a rebase; vault writes wait for it. */
export function gitBusy(vaultRoot: string): boolean {
  let gitDir = path.join(vaultRoot, '.git');
  try {
    if (fs.statSync(gitDir).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(gitDir, 'utf8'));
      if (m) gitDir = path.resolve(vaultRoot, m[1].trim());
    }
  } catch {
    return false;
  }
  return ['index.lock', 'rebase-merge', 'rebase-apply'].some((n) => fs.existsSync(path.join(gitDir, n)));
}

export function gitWaiter(vaultRoot: string, maxWaitMs = 10 * 60_000, pollMs = 250): () => Promise<void> {
  return async () => {
    const until = Date.now() + maxWaitMs;
    while (gitBusy(vaultRoot)) {
      if (Date.now() > until) {
        throw new EngramError('refused', `git in ${vaultRoot} stayed busy (index.lock or a rebase) for ${Math.round(maxWaitMs / 1000)} s; nothing was written`, 'finish the git operation (or remove a stale .git/index.lock) and run again');
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };
}

/**
 * The day's budgets: `budget.tokens_per_day` applies to the configured backend once the user sets it; until then each
 * backend's default applies (dailyLimit: the key's default for claude, nothing for a paid API, no limit for a local one).
 */
export function budgetsFrom(config: EffectiveConfig): BudgetConfig {
  if (config.source('budget.tokens_per_day') === 'default') return {};
  return { [config.get('backend')]: config.get('budget.tokens_per_day') };
}

/** Whether each backend is paid: its registry entry's word (openai by its URL, claude by the key it runs on). */
function paidByBackend(config: EffectiveConfig, env: NodeJS.ProcessEnv): Record<BackendName, boolean> {
  return Object.fromEntries(BACKENDS.map((b) => [b, backendEntry(b).paid(config, env)])) as Record<BackendName, boolean>;
}

/**
 * Whether to run the optional second "validate" pass: `extract.validate` from the config, with ENGRAM_EXTRACT_VALIDATE
 * (1/0, true/false) as an override even when the caller handed in a configuration built without the environment.
 */
export function validatePassFrom(config: EffectiveConfig, env: Record<string, string | undefined>): boolean {
  const raw = env.ENGRAM_EXTRACT_VALIDATE;
  if (raw !== undefined && raw.trim() !== '') {
    const checked = CONFIG_KEYS['extract.validate'].check(raw);
    if (checked.ok) return checked.value;
  }
  return config.get('extract.validate');
}

export interface ExtractContext {
  facts: HostFacts;
  vaultRoot: string;
  vaultKey: string;
  /** The host's vault port (Obsidian's API in the plugin host); the fs adapter over vaultRoot otherwise. */
  vault?: VaultPort;
  /** The configuration this run follows (a host reads it per job: an edit applies to the next one). */
  config: EffectiveConfig;
  backend?: BackendName | LlmBackend;
  mode?: 'background' | 'foreground';
  dryRun?: boolean;
  source?: EngramSourceKind;
  onWindow?: (done: number, total: number) => void;
  /** The vault index's search, so that dedup finds candidates across the whole vault (word overlap alone otherwise). */
  search?: (query: string, opts: SearchOptions) => Promise<SearchHit[]>;
  /** Shared across the sessions of one import so that the vault is read once. */
  catalog?: VaultCatalog;
  /** Window size (default DEFAULT_WINDOW, 15,000 tokens). */
  window?: ExtractWindowOptions;
  /** The host's crash switch (one count for its vault and state writes); read from ENGRAM_FAULT for this run otherwise. */
  fault?: (p: FaultPoint) => void;
}

export interface ExtractHost {
  state: StateStore;
  vault: VaultPort;
  backend: LlmBackend;
  config: EffectiveConfig;
  fault: (p: FaultPoint) => void;
}

/**
 * The backend an extraction run calls. One that cannot be built (no API key) fails each call with that error, so its
 * windows stay pending with the reason (status shows it) instead of the run dying before it records anything.
 */
function configuredBackend(name: BackendName, config: EffectiveConfig, env: NodeJS.ProcessEnv): LlmBackend {
  try {
    return createBackend(name, config, { env, timeoutMs: config.get('extract.timeout_ms') });
  } catch (e) {
    if (!(e instanceof BackendError)) throw e;
    return { name, model: '(unavailable)', paid: false, complete: () => Promise.reject(e) };
  }
}

/** Builds the ports one extraction run uses (shared by the transcript and import paths). */
export function extractHost(ctx: ExtractContext): ExtractHost {
  const { config } = ctx;
  const hit = ctx.fault ?? faultTrigger(faultFromEnv(ctx.facts.env));
  // One count for state files and notes: `before-rename:N` crashes at the N-th atomic write of either.
  const beforeRename = () => hit('before-rename');
  const state = new NodeStateStore(engramHome(ctx.facts), beforeRename);
  const vault = ctx.vault ?? new NodeVault(ctx.vaultRoot, { beforeRename });
  const backend = typeof ctx.backend === 'object' ? ctx.backend : configuredBackend(ctx.backend ?? config.get('backend'), config, ctx.facts.env as NodeJS.ProcessEnv);
  return { state, vault, backend, config, fault: hit };
}

/** Runs the pipeline over one parsed session. */
export async function extractParsedSession(ctx: ExtractContext, host: ExtractHost, session: Session): Promise<ExtractRun> {
  if (!ctx.dryRun) {
    const folders = ['folders.inbox', 'folders.projects', 'folders.working_memory'] as const;
    // Temp files a killed run left (the daemon's start does the same for the whole vault).
    await removeTempLeftovers([
      ...folders.map((k) => ({ dir: path.join(ctx.vaultRoot, host.config.get(k)), legacy: 'vault' as const, maxDepth: 4 })),
      { dir: path.join(engramHome(ctx.facts), 'vaults', ctx.vaultKey), legacy: 'state', maxDepth: 4 },
    ]);
  }
  // The one project resolver recall uses too (engram.local.json, git top level, the cwd's name), also for a cwd
  // that is gone since: its parent folders or the transcript's records still name the repository.
  setSessionProject(session.meta, ctx.facts.homeDir);
  return extractSession({
    ports: { vault: host.vault, clock: systemClock },
    state: host.state,
    vaultDir: `vaults/${ctx.vaultKey}`,
    vaultName: ctx.vaultRoot,
    backend: host.backend,
    session,
    source: ctx.source ?? 'hook-extraction',
    mode: ctx.mode ?? 'foreground',
    dryRun: ctx.dryRun,
    window: ctx.window,
    folders: {
      inbox: host.config.get('folders.inbox'),
      projects: host.config.get('folders.projects'),
      workingMemory: host.config.get('folders.working_memory'),
    },
    reviewDays: host.config.get('review_after_days'),
    budgets: budgetsFrom(host.config),
    waitForGit: gitWaiter(ctx.vaultRoot),
    // The optional second "validate" pass (one more call per window that has beats).
    validatePass: validatePassFrom(host.config, ctx.facts.env),
    retryBaseMs: host.config.get('extract.retry_after_minutes') * 60_000,
    // Write control, read at each run: a mode changed in the settings tab or with `engram configure` applies at once.
    privateZones: { folders: host.config.get('privacy.private_folders'), tags: host.config.get('privacy.private_tags'), projects: host.config.get('privacy.private_projects') },
    capture: capturePolicy(host.config.get('capture.mode'), host.config.get('capture.mode_by_type'), host.config.get('capture.mode_by_project')),
    fault: (point) => host.fault(point),
    onWindow: ctx.onWindow,
    ...(ctx.search ? { similar: indexSimilarity(ctx.search) } : {}),
    ...(ctx.catalog ? { catalog: ctx.catalog } : {}),
  });
}

export async function readTranscriptFile(file: string, opts: { keepEmails?: boolean } = {}): Promise<Session> {
  let head: string;
  try {
    const fd = await fsp.open(file, 'r');
    try {
      const buf = Buffer.alloc(16 * 1024);
      const { bytesRead } = await fd.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fd.close();
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new EngramError('not-found', `no such transcript: ${file}`);
    throw new EngramError('io', `cannot read ${file}: ${(e as Error).message}`);
  }
  const format = detectFormat(head, file);
  if (format === 'chat-export') throw new EngramError('usage', `${file} is a chat export (many conversations)`, 'use `engram import <file>` for Claude.ai and ChatGPT exports');
  if (format === 'unknown') throw new EngramError('usage', `${file} is not a Claude Code or Codex transcript`);
  return readSession(fs.createReadStream(file), format, { source: file, keepEmails: opts.keepEmails });
}

/** Extracts one transcript file into the vault: a host's `extract.run` (`engram extract`, live or in process). */
export async function extractTranscript(ctx: ExtractContext & { transcriptPath: string }): Promise<ExtractRun> {
  const host = extractHost(ctx);
  const session = await readTranscriptFile(ctx.transcriptPath, { keepEmails: host.config.get('extract.keep_emails') });
  return extractParsedSession(ctx, host, session);
}

/**
 * Usage in the last 24 hours and the budget left, per backend, for `engram status`: the same budgets (budgetsFrom)
 * and the same limit rule (dailyLimit) that background extraction applies.
 */
export async function extractionBudgetStatus(facts: HostFacts, config: EffectiveConfig, now = Date.now()): Promise<UsageSummary & { backend: BackendName; lines: string[] }> {
  const backend = config.get('backend');
  const summary = await usageSummary(new NodeStateStore(engramHome(facts)), now, budgetsFrom(config), paidByBackend(config, facts.env), [backend]);
  return { ...summary, backend, lines: summary.backends.map((b) => describeBudget(b)) };
}

/** A session with windows pending after a failed LLM call, as `engram status` lists it. */
export interface PendingSession extends PendingWindows {
  session: string;
  source?: string;
}

/** Sessions whose windows failed and wait for a retry (from the vault's ledger), for `engram status`. */
export async function pendingExtraction(facts: HostFacts, vaultKey: string): Promise<PendingSession[]> {
  const { JobStore } = await import('../../src/core/extract/journal.js');
  const ledger = await new JobStore(new NodeStateStore(engramHome(facts)), `vaults/${vaultKey}`).readLedger();
  return Object.entries(ledger.sessions)
    .filter(([, s]) => s.pending)
    .map(([key, s]) => ({ session: key, ...(s.source ? { source: s.source } : {}), ...s.pending! }))
    .sort((a, b) => a.at.localeCompare(b.at));
}
