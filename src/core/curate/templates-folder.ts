// The vault's templates folders, from Obsidian's own settings: the core Templates plugin's folder
// (`<config>/templates.json`, `folder`) and the Templater plugin's (`<config>/plugins/templater-obsidian/data.json`,
// `templates_folder`). Notes there are the user's machinery: never merged, split or used as evidence.
import type { VaultPort } from '../ports';

const SOURCES: Array<[file: string, key: string]> = [
  ['templates.json', 'folder'],
  ['plugins/templater-obsidian/data.json', 'templates_folder'],
];

/** The folders the settings name (none when a file is missing, unreadable or not JSON: folders called Templates still count). */
export async function templatesFolders(vault: VaultPort, configDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const [file, key] of SOURCES) {
    let data: unknown;
    try {
      data = JSON.parse((await vault.read(`${configDir}/${file}`)).text);
    } catch {
      continue;
    }
    const v = data && typeof data === 'object' ? (data as Record<string, unknown>)[key] : undefined;
    const folder = typeof v === 'string' ? v.trim().replace(/^\/+|\/+$/g, '') : '';
    if (folder && !out.includes(folder)) out.push(folder);
  }
  return out;
}
