// An Obsidian App for the plugin's tests: the mocks' App and workspace (under happy-dom) over a vault backed by a real
// folder (obsidian-folder-vault.ts), the private state folders of a sandbox, and the plugin's manifest.
import fs from 'node:fs';
import path from 'node:path';
import type { App as AppOriginal, PluginManifest } from 'obsidian';
import { App } from 'obsidian-test-mocks/obsidian';
import { setup } from 'obsidian-test-mocks/setup';
import { openFolderVault, type FolderVault } from './obsidian-folder-vault';
import { repoRoot } from './shared';

export interface PluginApp {
  app: AppOriginal;
  folder: FolderVault;
  manifest: PluginManifest;
  /** Obsidian finished loading the workspace (what `onLayoutReady` waits for). */
  layoutReady(): void;
}

let patched = false;

/** `root/vault` becomes the vault; the caller points ENGRAM_HOME and XDG_RUNTIME_DIR into `root` too. */
export function pluginApp(root: string, files: Record<string, string>): PluginApp {
  if (!patched) {
    setup();
    patched = true;
  }
  const vaultDir = path.join(root, 'vault');
  fs.mkdirSync(vaultDir, { recursive: true });
  const folder = openFolderVault(vaultDir, files);
  const app = App.createConfigured__();
  Object.assign(app, { vault: folder.vault, fileManager: folder.fileManager, metadataCache: folder.metadataCache });
  const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'manifest.json'), 'utf8')) as PluginManifest;
  return {
    app: app.asOriginalType__(),
    folder,
    manifest,
    layoutReady: () => app.workspace.setLayoutReady__(),
  };
}
