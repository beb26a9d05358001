// Shared fixtures for index tests: a fixed clock, a vault whose reads can be made to fail, a deterministic embedder.
import type { Clock, Embedder, VaultFile, VaultPath } from '../../src/core/ports.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';

export const NOW = Date.parse('2026-03-18T12:00:00Z');
export const fixedClock = (t = NOW): Clock => ({ now: () => t });
export const noYield = (): Promise<void> => Promise.resolve();

/** A MemoryVault whose reads of some paths fail, like a file locked or unreadable on disk. */
export class FlakyVault extends MemoryVault {
  readonly failing = new Set<string>();
  override read(path: VaultPath): Promise<VaultFile> {
    if (this.failing.has(path)) return Promise.reject(new Error(`EACCES: permission denied, open '${path}'`));
    return super.read(path);
  }
}

/**
 * A deterministic bag-of-words embedder for core tests (the real model is tested in tests/sidecar/embedder.test.ts):
 * words hash to buckets, so shared words mean similar vectors. Counts how many texts it embedded.
 */
export class CountingEmbedder implements Embedder {
  calls = 0;
  texts = 0;
  constructor(
    readonly modelId = 'test/bow-hash',
    readonly dimension = 64,
  ) {}
  embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    this.texts += texts.length;
    return Promise.resolve(
      texts.map((t) => {
        const v = new Float32Array(this.dimension);
        for (const w of t.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) {
          let h = 2166136261;
          for (const c of w) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
          v[(h >>> 0) % this.dimension] += 1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      }),
    );
  }
}

export function note(fm: Record<string, unknown>, body: string): string {
  const lines = Object.entries(fm).map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.join(', ')}]` : String(v)}`);
  return `---\n${lines.join('\n')}\n---\n${body}\n`;
}
