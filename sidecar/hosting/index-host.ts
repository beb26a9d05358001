// Opens a vault's index in this Node process: the fs vault, the embedding model (when there is one), the snapshot in
// `vaults/<key>/snapshot` (loaded when sound, rebuilt when not), and an atomic save. Used by the CLI and the daemon.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { errorMessage } from '../../src/core/errors.js';
import type { Embedder } from '../../src/core/ports.js';
import { engramHome } from '../../src/core/state.js';
import { VaultIndex, type IndexProgress, type OpenReport } from '../../src/core/index/vault-index.js';
import { loadConfig } from './config-file.js';
import { configuredModel, loadEmbedder, locateModel, type ModelLocation } from './embedder.js';
import { yieldImmediate } from './yield.js';
import { hostFacts } from './facts.js';
import { NodeVault } from './node-vault.js';
import { requireVault, type VaultContext } from './resolve.js';
import { atomicWriteFile } from './atomic-write.js';

export interface ModelState {
  location: ModelLocation;
  embedder?: Embedder;
  /** Why there is no embedder: search runs on BM25 alone. */
  problem?: string;
}

export async function resolveModel(env: NodeJS.ProcessEnv): Promise<ModelState> {
  const facts = hostFacts(env);
  const { config } = loadConfig(facts);
  const location = configuredModel(config, engramHome(facts));
  if (!location.dir) {
    const how = location.multilingual ? ['engram model pull --multilingual', 'embedding.multilingual_model_path'] : ['engram model pull', 'embedding.model_path'];
    return { location, problem: `no embedding model yet (run \`${how[0]}\` to download ${location.id}, or set ${how[1]})` };
  }
  try {
    return { location, embedder: await loadEmbedder(location.dir, { modelId: location.id }) };
  } catch (e) {
    return { location, problem: errorMessage(e) };
  }
}

export async function readSnapshot(file: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await fsp.readFile(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

export interface OpenedIndex {
  vault: VaultContext;
  index: VaultIndex;
  model: ModelState;
  report: OpenReport;
  save(): Promise<number>;
}

export async function openVaultIndex(opts: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  vault?: string;
  rebuild?: boolean;
  /** Skip loading the model (BM25 only), e.g. `engram search --mode bm25`. */
  noModel?: boolean;
  onProgress?: (p: IndexProgress) => void;
}): Promise<OpenedIndex> {
  const facts = hostFacts(opts.env);
  const vault = requireVault(facts, opts.cwd, opts.vault);
  const model: ModelState = opts.noModel
    ? { location: locateModel({ engramHome: engramHome(facts), modelId: 'none', modelPath: null }), problem: 'BM25 mode requested' }
    : await resolveModel(opts.env);
  const index = new VaultIndex({ vault: new NodeVault(vault.realPath), embedder: model.embedder, onProgress: opts.onProgress, yieldNow: yieldImmediate });
  const snapshot = opts.rebuild ? null : await readSnapshot(vault.state.snapshot);
  const report = await index.open(snapshot);
  if (opts.rebuild) report.reason = 'rebuild requested';
  return {
    vault,
    index,
    model,
    report,
    async save() {
      const bytes = await index.snapshotAsync();
      await atomicWriteFile(vault.state.snapshot, bytes, { mode: 0o600 });
      return bytes.length;
    },
  };
}

export function snapshotExists(file: string): boolean {
  return fs.existsSync(file);
}
