// Plugs the other engineers' pieces into the daemon: the VaultIndex and the transcript extractor.
// Until they land the engine uses its built-in BM25 and jobs record that no extractor is available.
import type { EngineIndex, Engine } from '../../src/core/engine.js';
import type { FsVault } from './fs-vault.js';
import type { Logger } from './logger.js';
import type { TranscriptExtractor } from './session-jobs.js';

export async function makeIndex(_vault: FsVault, _log: Logger): Promise<EngineIndex | undefined> {
  return undefined;
}

export async function makeExtractor(_engine: Engine, _log: Logger): Promise<TranscriptExtractor | undefined> {
  return undefined;
}
