// A pane bench's page: the 13,415-note vault's notes handed to a bundled page in headless Chromium. Says why and gives
// nothing where the shared corpus or Chromium is missing.
import fs from 'node:fs';
import { bundleForBrowser, chromiumMissing, openPage, type ChromiumPage } from '../../tests/helpers/chromium.js';
import { readVaultTexts, zettelDir } from './index-corpus.js';

export async function openCorpusPage(entry: string): Promise<ChromiumPage | undefined> {
  const missing = !fs.existsSync(zettelDir) ? 'the shared corpus (../shared/corpus/vaults) is not here' : chromiumMissing();
  if (missing) {
    console.log(`  skipped: ${missing}`);
    return undefined;
  }
  const files = readVaultTexts(zettelDir);
  return openPage(await bundleForBrowser(entry, { obsidian: 'obsidian-test-mocks/obsidian' }), { 'notes.json': JSON.stringify(files) }, { viewport: { width: 900, height: 700 } });
}
