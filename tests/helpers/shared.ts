// Locates ../shared (the corpus beside the checkout). Tests that need it skip with a one-line reason when absent.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Path arithmetic, not `new URL(…)`: under happy-dom (the plugin's DOM tests) URL is happy-dom's, not Node's.
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sharedDir = process.env.ENGRAM_SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared');
export const corpusDir = path.join(sharedDir, 'corpus');
export const hasCorpus = fs.existsSync(corpusDir);
export const corpusSkipReason = `../shared/corpus not found at ${corpusDir}: corpus tests skipped`;

export function corpusPath(...parts: string[]): string {
  return path.join(corpusDir, ...parts);
}
