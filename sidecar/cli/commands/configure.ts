// `engram configure [key [value]]`: shows the effective configuration and where each value came from, or sets
// (or with --unset removes) one key in $ENGRAM_HOME/config.json after validating it.
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_KEY_NAMES, isConfigKey, keySpec, unknownKeyError, type EffectiveEntry } from '../../../src/core/config.js';
import { EngramError } from '../../../src/core/errors.js';
import { saveConfigKey } from '../../hosting/config-file.js';
import { findVault } from '../../hosting/resolve.js';
import type { CommandContext, CommandDefinition } from '../types.js';

function sourceText(e: EffectiveEntry): string {
  return e.source === 'environment' ? `environment ${e.env}` : e.source;
}

function show(v: unknown): string {
  return v === null ? '(unset)' : typeof v === 'string' ? v : JSON.stringify(v);
}

function entryJson(e: EffectiveEntry) {
  const s = keySpec(e.key);
  return { key: e.key, value: e.value, source: e.source, ...(e.env ? { env: e.env } : {}), default: s.default, type: s.type, ...(s.values ? { values: s.values } : {}), description: e.description };
}

/** A path given on the command line is taken relative to the current folder (`~` expanded). */
function absolutePath(value: string, ctx: CommandContext, home: string): string {
  const expanded = value === '~' ? home : value.startsWith('~/') ? path.join(home, value.slice(2)) : value;
  return path.resolve(ctx.cwd, expanded);
}

/** The vault must be an existing folder. */
function existingVault(abs: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new EngramError('not-found', `vault path does not exist: ${abs}`, 'create the folder (or open it as a vault in Obsidian) first');
  }
  if (!st.isDirectory()) throw new EngramError('invalid-config', `vault path is not a folder: ${abs}`);
  return abs;
}

export const command: CommandDefinition = {
  usage: 'configure [key [value]] [--unset] [--json]',
  description: 'Show the effective configuration (and where each value comes from), or set one key.',
  options: {
    unset: { type: 'boolean', description: 'Remove the key from config.json (its default applies again)' },
  },
  details: [
    'Values come from, in rising order: defaults, $ENGRAM_HOME/config.json, ENGRAM_<KEY> environment variables',
    '(dots as underscores, e.g. ENGRAM_RECALL_PROMPT_CHARS).',
    '',
    'Keys:',
    ...CONFIG_KEY_NAMES.map((k) => `  ${k.padEnd(34)} ${keySpec(k).description}`),
  ].join('\n'),
  async run(ctx) {
    const facts = ctx.facts;
    const [key, value, ...extra] = ctx.args;
    if (extra.length > 0) throw new EngramError('usage', `too many arguments: ${extra.join(' ')}`);
    const unset = Boolean(ctx.options.unset);
    if (unset && (!key || value !== undefined)) throw new EngramError('usage', '--unset takes exactly one key');

    if (key !== undefined && !isConfigKey(key)) throw unknownKeyError(key);

    if (key !== undefined && (value !== undefined || unset)) {
      let v: unknown = value ?? null;
      if (keySpec(key).type === 'path' && typeof v === 'string' && v !== '') v = absolutePath(v, ctx, facts.homeDir);
      if (key === 'vault_path' && typeof v === 'string' && v !== '') v = existingVault(v);
      const saved = await saveConfigKey(facts, key, unset ? null : v);
      const e = saved.config.entries.get(key);
      if (!e) throw unknownKeyError(key);
      if (ctx.global.json) ctx.stdout(JSON.stringify({ file: saved.file, ...entryJson(e) }, null, 2));
      else {
        ctx.stdout(unset ? `${key} removed from ${saved.file}; now ${show(e.value)} (${sourceText(e)})` : `${key} = ${show(e.value)} (saved to ${saved.file})`);
        if (e.source === 'environment') ctx.stderr(`note: ${e.env} is set and overrides the file`);
      }
      return 0;
    }

    const loaded = ctx.configFile();
    if (key !== undefined) {
      const e = loaded.config.entries.get(key);
      if (!e) throw unknownKeyError(key);
      if (ctx.global.json) ctx.stdout(JSON.stringify(entryJson(e), null, 2));
      else ctx.stdout(`${key} = ${show(e.value)} (${sourceText(e)})`);
      return 0;
    }

    let vault: { path: string; origin: string } | null = null;
    let vaultProblem: string | undefined;
    try {
      vault = findVault(facts, ctx.cwd, ctx.global.vault, () => loaded.config);
    } catch (e) {
      vaultProblem = (e as Error).message;
    }
    const entries = [...loaded.config.entries.values()];
    if (ctx.global.json) {
      ctx.stdout(JSON.stringify({ file: loaded.file, fileExists: loaded.data !== null, vault, entries: entries.map(entryJson), problems: [...loaded.config.problems, ...(vaultProblem ? [vaultProblem] : [])] }, null, 2));
      return 0;
    }
    const width = Math.max(...entries.map((e) => e.key.length));
    const valueWidth = Math.min(48, Math.max(...entries.map((e) => show(e.value).length)));
    ctx.stdout(`Configuration (${loaded.file}${loaded.data === null ? ', not created yet' : ''}):`);
    for (const e of entries) ctx.stdout(`  ${e.key.padEnd(width)}  ${show(e.value).padEnd(valueWidth)}  ${sourceText(e)}`);
    ctx.stdout('');
    if (vault) ctx.stdout(`Vault in use here: ${vault.path} (from ${vault.origin})`);
    else ctx.stdout(vaultProblem ? `Vault: ${vaultProblem}` : 'Vault: none configured; set one with `engram configure vault_path <path>`');
    for (const p of loaded.config.problems) ctx.stderr(`warning: ${p}`);
    return 0;
  },
};
