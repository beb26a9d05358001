// Reads and writes $ENGRAM_HOME/config.json; the rules (keys, validation, sources) live in src/core/config.ts.
// A copy of the last config.json that was read whole and without a problem is kept beside it (config.last-good.json):
// while the file is broken (a hand edit left it invalid JSON) every reader uses that copy and says so, so capture and
// recall keep running as they were configured instead of stopping or falling back to defaults.
import fs from 'node:fs';
import path from 'node:path';
import { effectiveConfig, parseConfigFile, serializeConfigFile, setConfigValue, unsetConfigValue, type EffectiveConfig } from '../../src/core/config.js';
import { EngramError, errorMessage, isEngramError } from '../../src/core/errors.js';
import { engramHome, userState, type HostFacts } from '../../src/core/state.js';
import { atomicWriteFile, atomicWriteFileSync } from './atomic-write.js';

export interface LoadedConfig {
  file: string;
  /** The file's data (null when it does not exist); while it is broken, the last good copy's (or null). */
  data: Record<string, unknown> | null;
  config: EffectiveConfig;
  /** Set while config.json is broken: why, and what is used instead (also the first of `config.problems`). */
  broken?: string;
}

/**
 * The configuration as it is now. Only entry points read config.json (the CLI's and the hook's contexts, the daemon's
 * main, the plugin's config access; tests/sidecar/config-entry-points.test.ts holds the list) and hand the rest this
 * getter: a command calls it once; a long-lived host calls it at each use, so an edit applies without a restart.
 */
export type ConfigReader = () => EffectiveConfig;

/**
 * `read` asked at most once: its configuration, or its error (a broken file with no last good copy), is kept and
 * given again. For a short process that asks in several places, such as the hook on every prompt.
 */
export function readOnce(read: ConfigReader): ConfigReader {
  let kept: { config: EffectiveConfig } | { error: unknown } | undefined;
  return () => {
    if (!kept) {
      try {
        kept = { config: read() };
      } catch (error) {
        kept = { error };
      }
    }
    if ('error' in kept) throw kept.error;
    return kept.config;
  };
}

export function configFilePath(facts: HostFacts): string {
  return userState(engramHome(facts), facts.platform).configFile;
}

/** Where the last good copy of a config file is kept. */
export function lastGoodPath(file: string): string {
  return path.join(path.dirname(file), 'config.last-good.json');
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new EngramError('io', `cannot read ${file}: ${errorMessage(e)}`);
  }
}

/** The file's data, or null when it does not exist; throws (naming the line) when it is not valid. */
export function readConfigFile(file: string): Record<string, unknown> | null {
  const text = readText(file);
  return text === null ? null : parseConfigFile(text, file);
}

interface ConfigData {
  data: Record<string, unknown> | null;
  /** The file's text when it was read and parsed (to keep as the last good copy). */
  text?: string;
  broken?: string;
}

/** config.json's data, or while it is broken the last good copy's, with why. */
export function readConfigData(file: string): ConfigData {
  const text = readText(file);
  if (text === null) return { data: null };
  try {
    return { data: parseConfigFile(text, file), text };
  } catch (e) {
    if (!isEngramError(e)) throw e;
    const copy = lastGoodPath(file);
    const good = readLastGood(file);
    if (good === null) throw e;
    const saved = fs.statSync(copy, { throwIfNoEntry: false })?.mtime.toISOString() ?? 'an earlier run';
    return { data: good, broken: `${e.message}; using the last good configuration (${copy}, saved ${saved}) until it is fixed${e.hint ? ` (${e.hint})` : ''}` };
  }
}

function readLastGood(file: string): Record<string, unknown> | null {
  try {
    return readConfigFile(lastGoodPath(file));
  } catch {
    return null;
  }
}

/** Keeps `text` as the last good copy when it differs from the one kept (a few bytes read per load). */
function keepLastGood(file: string, text: string): void {
  const copy = lastGoodPath(file);
  try {
    if (readText(copy) === text) return;
    atomicWriteFileSync(copy, text, { mode: 0o600 });
  } catch {
    // a read-only or full $ENGRAM_HOME: the copy is a convenience
  }
}

export function loadConfig(facts: HostFacts): LoadedConfig {
  const file = configFilePath(facts);
  const read = readConfigData(file);
  let config = effectiveConfig(read.data, facts.env);
  const fileProblems = config.problems.some((p) => p.startsWith('config.json:'));
  // Only a file every key of which was taken as written becomes the last good copy; an invalid value falls back on it.
  if (read.text !== undefined && !fileProblems) keepLastGood(file, read.text);
  if (read.text !== undefined && fileProblems) config = effectiveConfig(read.data, facts.env, readLastGood(file));
  if (read.broken) config.problems.unshift(read.broken);
  return { file, data: read.data, config, ...(read.broken ? { broken: read.broken } : {}) };
}

/**
 * A long-lived host's reader: config.json is read again only when the file changed (its inode, size or time: an
 * atomic write is a new inode), so a reader called on every search costs a stat, not a parse.
 */
export function liveConfig(facts: HostFacts): ConfigReader {
  const file = configFilePath(facts);
  let known: { key: string; config: EffectiveConfig } | undefined;
  return () => {
    let key = 'none';
    try {
      const st = fs.statSync(file);
      key = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      // no config.json: defaults and the environment
    }
    if (known?.key !== key) known = { key, config: loadConfig(facts).config };
    return known.config;
  };
}

/** Sets (value) or removes (null) one key in config.json, atomically; returns the new effective configuration. */
export async function saveConfigKey(facts: HostFacts, key: string, value: unknown | null): Promise<LoadedConfig> {
  const file = configFilePath(facts);
  const data = readConfigFile(file);
  const next = value === null ? unsetConfigValue(data, key) : setConfigValue(data, key, value);
  const text = serializeConfigFile(next);
  await atomicWriteFile(file, text);
  const config = effectiveConfig(next, facts.env);
  if (!config.problems.some((p) => p.startsWith('config.json:'))) keepLastGood(file, text);
  return { file, data: next, config };
}
