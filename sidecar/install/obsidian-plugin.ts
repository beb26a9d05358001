// The Obsidian plugin in a vault: `engram setup` copies the built plugin (main.js, manifest.json, styles.css) into
// <vault>/.obsidian/plugins/engram/ and turns it on in .obsidian/community-plugins.json; `engram uninstall` takes out
// exactly that, as recorded in $ENGRAM_HOME/install.json. The plugin's data.json (the user's settings, written by the
// plugin, never by setup) stays: reinstalling finds them again, and deleting the folder drops them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EngramError } from '../../src/core/errors.js';
import { atomicWriteFileSync } from '../hosting/atomic-write.js';
import { realVaultPath } from '../hosting/paths.js';
import { readRecord, shq, writeRecord, type ObsidianPluginRecord } from '../hosting/install-facts.js';

export const PLUGIN_FILES = ['main.js', 'manifest.json', 'styles.css'] as const;
const PLUGIN_ID = 'engram';

export function pluginDir(vault: string): string {
  return path.join(vault, '.obsidian', 'plugins', PLUGIN_ID);
}

function listFile(vault: string): string {
  return path.join(vault, '.obsidian', 'community-plugins.json');
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function sha256(data: Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The enabled-plugins list; refuses a file that is not a JSON array (it is the user's, and Obsidian's). */
function parseList(file: string, text: string | null): unknown[] {
  if (text === null || text.trim() === '') return [];
  try {
    const v: unknown = JSON.parse(text);
    if (!Array.isArray(v)) throw new Error('not a JSON array');
    return v;
  } catch (e) {
    throw new EngramError('invalid-config', `${file} is not valid JSON (${(e as Error).message}); not touching it or the plugin`, 'fix the file by hand (a JSON array of plugin ids, e.g. ["dataview"]) or remove it, then run the command again');
  }
}

/** Where each top-level element of a valid JSON array starts and ends in its text. */
function elementSpans(text: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  let lastEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') {
        inString = false;
        lastEnd = i + 1;
      }
      continue;
    }
    if (/\s/.test(ch)) continue;
    if (depth === 1 && (ch === ',' || ch === ']')) {
      if (start >= 0) spans.push({ start, end: lastEnd });
      start = -1;
    }
    if (ch === '"') {
      inString = true;
      if (depth === 1 && start < 0) start = i;
      continue;
    }
    if (ch === '[' || ch === '{') {
      if (depth === 1 && start < 0) start = i;
      depth++;
      continue;
    }
    if (ch === ']' || ch === '}') {
      depth--;
      lastEnd = i + 1;
      continue;
    }
    if (depth === 1 && ch !== ',' && start < 0) start = i;
    lastEnd = i + 1;
  }
  return spans;
}

function sameList(text: string, want: unknown[]): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(want);
  } catch {
    return false;
  }
}

/** The list with `engram` appended, written the way the file already is (Obsidian writes two-space JSON). */
export function addEntry(file: string, text: string | null): string {
  const list = parseList(file, text);
  if (text !== null && list.includes(PLUGIN_ID)) return text;
  const want = [...list, PLUGIN_ID];
  const fallback = JSON.stringify(want, null, 2);
  if (text === null || text.trim() === '') return fallback;
  const spans = elementSpans(text);
  let next: string;
  if (!spans.length) next = fallback;
  else {
    // The same separator as between `[` and the first element (a newline and indent, or nothing).
    const sep = text.slice(text.indexOf('[') + 1, spans[0].start);
    const last = spans[spans.length - 1].end;
    next = `${text.slice(0, last)},${sep}${JSON.stringify(PLUGIN_ID)}${text.slice(last)}`;
  }
  return sameList(next, want) ? next : fallback;
}

/** The list without `engram`, every other byte where it was. */
export function removeEntry(file: string, text: string): string {
  const list = parseList(file, text);
  if (!list.includes(PLUGIN_ID)) return text;
  const want = list.filter((x) => x !== PLUGIN_ID);
  const spans = elementSpans(text);
  let next = text;
  // From the last element back, so earlier spans stay where they were (a list that comes out wrong, as with a
  // repeated entry, is written plainly instead).
  for (let i = spans.length - 1; i >= 0; i--) {
    if (JSON.parse(text.slice(spans[i].start, spans[i].end)) !== PLUGIN_ID) continue;
    if (i > 0) next = next.slice(0, spans[i - 1].end) + next.slice(spans[i].end);
    else if (spans.length > 1) next = next.slice(0, spans[0].start) + next.slice(spans[1].start);
    else next = `${next.slice(0, next.indexOf('[') + 1)}${next.slice(next.lastIndexOf(']'))}`;
  }
  return sameList(next, want) ? next : JSON.stringify(want, null, 2);
}

/** The built plugin's files under `source`, or which of them are missing. */
export function missingPluginFiles(source: string): string[] {
  return PLUGIN_FILES.filter((f) => !fs.existsSync(path.join(source, f)));
}

/** A development build (`npm run dev`): unminified with the source map inlined, megabytes, not for a vault. */
export function isDevelopmentBuild(mainJs: Buffer): boolean {
  return mainJs.subarray(Math.max(0, mainJs.length - 4_000_000)).includes('//# sourceMappingURL=data:application/json');
}

export interface PluginInstall {
  vault: string;
  dir: string;
  /** Each file: added (new), updated (was different), unchanged. */
  files: Record<string, 'added' | 'updated' | 'unchanged'>;
  /** The `engram` entry in community-plugins.json. */
  enabled: 'added' | 'unchanged' | 'left as is';
  list: string;
}

/**
 * Copies the built plugin from `source` into the vault and (with `enable`) adds `engram` to community-plugins.json.
 * Idempotent; an invalid community-plugins.json is refused before anything is written.
 */
export function installPlugin(opts: { vault: string; source: string; env: NodeJS.ProcessEnv; enable: boolean }): PluginInstall {
  const vault = realVaultPath(opts.vault);
  const missing = missingPluginFiles(opts.source);
  if (missing.length) throw new EngramError('not-found', `the Obsidian plugin is not built in ${opts.source} (no ${missing.join(', ')})`, `run \`npm run build\` in ${opts.source}, then \`engram setup\` again`);
  if (isDevelopmentBuild(fs.readFileSync(path.join(opts.source, 'main.js')))) {
    throw new EngramError('invalid-config', `${path.join(opts.source, 'main.js')} is a development build (\`npm run dev\`: unminified, with its source map inlined); not installing it into the vault`, `run \`npm run build\` in ${opts.source}, then \`engram setup\` again`);
  }
  const list = listFile(vault);
  const before = readText(list);
  // Checked first: a list we cannot edit changes nothing at all.
  const after = opts.enable ? addEntry(list, before) : before;
  const dir = pluginDir(vault);
  const rec = readRecord(opts.env);
  const prev = rec.obsidianPlugins?.[vault];
  const createdDirs = prev?.createdDirs ?? [];
  for (const d of [path.dirname(list), path.dirname(dir), dir]) {
    if (!fs.existsSync(d)) {
      fs.mkdirSync(d);
      createdDirs.push(d);
    }
  }
  const files: PluginInstall['files'] = {};
  const hashes: Record<string, string> = {};
  for (const f of PLUGIN_FILES) {
    const data = fs.readFileSync(path.join(opts.source, f));
    const target = path.join(dir, f);
    const current = fs.existsSync(target) ? fs.readFileSync(target) : null;
    hashes[f] = sha256(data);
    if (current && current.equals(data)) files[f] = 'unchanged';
    else {
      atomicWriteFileSync(target, data);
      files[f] = current ? 'updated' : 'added';
    }
  }
  let enabled: PluginInstall['enabled'] = 'left as is';
  if (opts.enable) {
    enabled = after === before ? 'unchanged' : 'added';
    if (after !== null && after !== before) atomicWriteFileSync(list, after);
  }
  const entry: ObsidianPluginRecord = { dir, files: hashes, createdList: prev?.createdList ?? (before === null && after !== null), createdDirs };
  rec.obsidianPlugins = { ...rec.obsidianPlugins, [vault]: entry };
  writeRecord(opts.env, rec);
  return { vault, dir, files, enabled, list };
}

/** Was the plugin installed into this vault by setup (and not taken out since)? */
export function installedPlugin(env: NodeJS.ProcessEnv, vault: string): ObsidianPluginRecord | undefined {
  return readRecord(env).obsidianPlugins?.[realVaultPath(vault)];
}

/** The plugin as Obsidian would find it in a vault (for doctor): which files are there, is it turned on. */
export function pluginState(vault: string): { missing: string[]; enabled: boolean | 'invalid list'; version?: string } {
  const dir = pluginDir(vault);
  const missing = missingPluginFiles(dir);
  let enabled: boolean | 'invalid list';
  try {
    enabled = parseList(listFile(vault), readText(listFile(vault))).includes(PLUGIN_ID);
  } catch {
    enabled = 'invalid list';
  }
  let version: string | undefined;
  try {
    const v = (JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { version?: unknown }).version;
    version = typeof v === 'string' ? v : undefined;
  } catch {
    // no manifest: reported as missing
  }
  return { missing, enabled, version };
}

export interface PluginRemoval {
  vault: string;
  dir: string;
  /** kept: changed since setup, no longer ours; refused: community-plugins.json is not valid JSON, nothing touched. */
  status: 'removed' | 'would remove' | 'kept' | 'refused' | 'absent';
  /** What was (or would be) taken out. */
  removed: string[];
  /** Why the plugin was kept, or what stayed (the user's settings). */
  note?: string;
}

function removeIfEmpty(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * Takes out each plugin install the record holds: the three files (only while they are what setup wrote), the
 * `engram` entry in community-plugins.json, and the folders setup created once they are empty. data.json stays.
 */
export function uninstallPlugins(env: NodeJS.ProcessEnv, dryRun: boolean): PluginRemoval[] {
  const rec = readRecord(env);
  const out: PluginRemoval[] = [];
  for (const [vault, entry] of Object.entries(rec.obsidianPlugins ?? {})) {
    const present = PLUGIN_FILES.filter((f) => fs.existsSync(path.join(entry.dir, f)));
    const changed = present.filter((f) => sha256(fs.readFileSync(path.join(entry.dir, f))) !== entry.files[f]);
    const list = listFile(vault);
    const before = readText(list);
    if (changed.length) {
      // Updated since (from the community store, or a build copied by hand): no longer what setup installed.
      out.push({ vault, dir: entry.dir, status: 'kept', removed: [], note: `${changed.join(', ')} changed since \`engram setup\` installed ${changed.length === 1 ? 'it' : 'them'} (updated from the community store?); remove the plugin in Obsidian: Settings → Community plugins` });
      if (!dryRun) delete rec.obsidianPlugins?.[vault];
      continue;
    }
    let after: string | null = before;
    try {
      after = before === null ? null : removeEntry(list, before);
    } catch (e) {
      // Leave this vault whole; the caller reports it and goes on with the rest.
      const hint = e instanceof EngramError && e.hint ? ` (fix: ${e.hint})` : '';
      out.push({ vault, dir: entry.dir, status: 'refused', removed: [], note: `${(e as Error).message}${hint}` });
      continue;
    }
    const removed = present.map((f) => path.join(entry.dir, f));
    if (after !== before) removed.push(`the engram entry in ${path.relative(vault, list)}`);
    const dataJson = path.join(entry.dir, 'data.json');
    const note = fs.existsSync(dataJson) ? `kept ${dataJson} (your plugin settings; delete the folder to drop them)` : undefined;
    if (dryRun) {
      out.push({ vault, dir: entry.dir, status: removed.length ? 'would remove' : 'absent', removed, note });
      continue;
    }
    for (const f of present) fs.rmSync(path.join(entry.dir, f), { force: true });
    if (after !== null && after !== before) {
      if (entry.createdList && sameList(after, [])) fs.rmSync(list, { force: true });
      else atomicWriteFileSync(list, after);
    }
    if (removeIfEmpty(entry.dir)) removed.push(entry.dir);
    for (const d of [...entry.createdDirs].reverse()) if (d !== entry.dir && removeIfEmpty(d)) removed.push(d);
    delete rec.obsidianPlugins?.[vault];
    out.push({ vault, dir: entry.dir, status: removed.length ? 'removed' : 'absent', removed, note });
  }
  if (!dryRun) writeRecord(env, rec);
  return out;
}

export interface PluginQuestion {
  vault: string;
  env: NodeJS.ProcessEnv;
  /** --yes: install without asking. */
  yes: boolean;
  /** --no-plugin */
  skip: boolean;
  /** A terminal to ask in. */
  interactive: boolean;
  ask: (question: string) => Promise<string>;
}

/** What setup does about the plugin: install it (turning it on, or leaving that as the user set it), or why not. */
export type PluginChoice =
  | { install: true; enable: boolean }
  | { install: false; status: 'skipped' | 'declined' | 'no terminal'; line: string };

/**
 * Asked before setup changes anything, so the rest runs unattended: --yes or a yes at the question installs and turns
 * the plugin on; a vault setup installed it into before gets its files refreshed without asking, its on/off state
 * left as the user set it in Obsidian.
 */
/** The command that installs the plugin into this vault, naming the vault however this run chose it. */
function setupAgain(vault: string): string {
  return `\`engram setup --vault ${shq(vault)} --yes\``;
}

export async function choosePlugin(o: PluginQuestion): Promise<PluginChoice> {
  const dir = pluginDir(realVaultPath(o.vault));
  const again = setupAgain(o.vault);
  if (o.skip) return { install: false, status: 'skipped', line: 'skipped (--no-plugin)' };
  if (o.yes) return { install: true, enable: true };
  if (installedPlugin(o.env, o.vault)) return { install: true, enable: false };
  if (!o.interactive) return { install: false, status: 'no terminal', line: `not installed (no terminal to ask in); ${again} installs it into ${dir}` };
  const answer = (await o.ask(`Install the Obsidian plugin into ${dir} and turn it on? [y/N] `)).trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return { install: true, enable: true };
  return { install: false, status: 'declined', line: `not installed; ${again} installs it later` };
}

export interface PluginStep {
  status: 'installed' | 'skipped' | 'declined' | 'no terminal' | 'failed';
  install?: PluginInstall;
  /** The lines setup prints, the first after "Obsidian plugin: ". */
  lines: string[];
}

/** Carries out the choice; a problem (no built plugin, an invalid community-plugins.json) fails this step only. */
export function pluginStep(choice: PluginChoice, o: { vault: string; source: () => string; env: NodeJS.ProcessEnv; obsidianOpen: (vault: string) => boolean }): PluginStep {
  if (!choice.install) return { status: choice.status, lines: [choice.line] };
  let result: PluginInstall;
  try {
    result = installPlugin({ vault: o.vault, source: o.source(), env: o.env, enable: choice.enable });
  } catch (e) {
    const hint = e instanceof EngramError && e.hint ? ` (fix: ${e.hint})` : '';
    return { status: 'failed', lines: [`not installed: ${(e as Error).message}${hint}`] };
  }
  const files = PLUGIN_FILES.map((f) => `${f} ${result.files[f]}`).join(', ');
  const lines = [`${files} in ${result.dir}`];
  if (result.enabled === 'left as is') lines.push(`   on or off as you left it in Obsidian (${setupAgain(o.vault)} turns it on)`);
  else lines.push(`   turned on in ${result.list}${result.enabled === 'unchanged' ? ' (already there)' : ''}`);
  lines.push('   Obsidian loads it when it next opens this vault, or at once from Settings → Community plugins; if community');
  lines.push('   plugins are off there (Restricted mode), turn them on first.');
  if (o.obsidianOpen(o.vault)) {
    lines.push('   Obsidian has this vault open now: it reads that list only when the vault opens, and may write its own over it;');
    lines.push('   turn Engram on in Settings → Community plugins, or quit and reopen Obsidian.');
  }
  return { status: 'installed', install: result, lines };
}
