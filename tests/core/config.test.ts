// Configuration: keys, validation, sources (default < config file < environment), file format version.
import { describe, expect, it } from 'vitest';
import {
  CONFIG_KEYS, CONFIG_KEY_NAMES, effectiveConfig, envNameOf, parseConfigFile, serializeConfigFile, setConfigValue, unsetConfigValue,
} from '../../src/core/config.js';
import { readFormat, upgradeFormat } from '../../src/core/format-version.js';
import { isEngramError } from '../../src/core/errors.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

describe('config keys', () => {
  it('has the keys the README names, each with a description and a valid default', () => {
    for (const k of ['vault_path', 'backend', 'claude.model', 'anthropic.model', 'ollama.model', 'ollama.url', 'openai.model', 'openai.url',
      'budget.tokens_per_day', 'embedding.model_path', 'embedding.model_id', 'folders.inbox', 'folders.projects', 'folders.working_memory',
      'folders.archive', 'folders.log', 'review_after_days', 'recall.session_start_chars', 'recall.prompt_chars', 'recall.prompt_items',
      'hooks.session_start_deadline_ms', 'hooks.prompt_deadline_ms', 'idle_timeout_minutes']) {
      expect(CONFIG_KEY_NAMES).toContain(k);
    }
    for (const k of CONFIG_KEY_NAMES) {
      const s = CONFIG_KEYS[k];
      expect(s.description.length, k).toBeGreaterThan(10);
      if (s.default !== null) expect(s.check(s.default), k).toEqual({ ok: true, value: s.default });
    }
  });

  it('has the documented defaults', () => {
    const c = effectiveConfig(null, {});
    expect(c.get('backend')).toBe('claude');
    expect(c.get('review_after_days')).toBe(28);
    expect(c.get('recall.session_start_chars')).toBe(4000);
    expect(c.get('recall.prompt_chars')).toBe(1500);
    expect(c.get('recall.prompt_items')).toBe(5);
    expect(c.get('idle_timeout_minutes')).toBe(60);
    expect(c.get('folders.working_memory')).toBe('Engram/Working memory');
    expect(c.get('vault_path')).toBeNull();
    expect(c.source('backend')).toBe('default');
  });
});

describe('effective configuration', () => {
  it('takes the file over defaults and the environment over the file, saying where each came from', () => {
    const file = { version: 1, backend: 'ollama', recall: { prompt_chars: 900 }, vault_path: '/v' };
    const c = effectiveConfig(file, { ENGRAM_RECALL_PROMPT_CHARS: '1200', ENGRAM_BACKEND: 'rules' });
    expect(c.get('backend')).toBe('rules');
    expect(c.entries.get('backend')).toMatchObject({ source: 'environment', env: 'ENGRAM_BACKEND' });
    expect(c.get('recall.prompt_chars')).toBe(1200);
    expect(c.get('vault_path')).toBe('/v');
    expect(c.source('vault_path')).toBe('config file');
    expect(c.source('review_after_days')).toBe('default');
    expect(c.problems).toEqual([]);
  });

  it('reports invalid values and unknown keys and keeps working on the defaults', () => {
    const c = effectiveConfig({ version: 1, backend: 'gpt', review_after_days: 'soon', colour: 'blue', recall: { bogus: 1 } }, { ENGRAM_RECALL_PROMPT_ITEMS: 'many' });
    expect(c.get('backend')).toBe('claude');
    expect(c.get('review_after_days')).toBe(28);
    expect(c.get('recall.prompt_items')).toBe(5);
    expect(c.problems.join('\n')).toMatch(/backend should be one of claude, anthropic, ollama, openai, rules/);
    expect(c.problems.join('\n')).toMatch(/review_after_days should be a whole number/);
    expect(c.problems.join('\n')).toMatch(/ENGRAM_RECALL_PROMPT_ITEMS/);
    expect(c.problems.join('\n')).toMatch(/unknown key colour/);
    expect(c.problems.join('\n')).toMatch(/unknown key recall.bogus/);
  });

  it('does not read the vault from ENGRAM_VAULT_PATH (ENGRAM_VAULT belongs to vault resolution)', () => {
    expect(envNameOf('vault_path')).toBeNull();
    expect(envNameOf('embedding.model_id')).toBe('ENGRAM_EMBEDDING_MODEL_ID');
  });
});

describe('setting keys', () => {
  it('validates and coerces CLI text, nesting dotted keys', () => {
    let f = setConfigValue(null, 'recall.prompt_items', '7');
    f = setConfigValue(f, 'backend', 'anthropic');
    f = setConfigValue(f, 'ollama.url', 'http://localhost:11434/');
    expect(f).toEqual({ version: 1, recall: { prompt_items: 7 }, backend: 'anthropic', ollama: { url: 'http://localhost:11434' } });
    expect(JSON.parse(serializeConfigFile(f))).toEqual(f);
    expect(serializeConfigFile(f).startsWith('{\n  "version": 1')).toBe(true);
  });

  it('transcripts.extra_folders: a list of absolute paths, empty by default; text is split on the list separator', () => {
    expect(effectiveConfig(null, {}).get('transcripts.extra_folders')).toEqual([]);
    const f = setConfigValue(null, 'transcripts.extra_folders', '/data/agent-logs:~/exports');
    expect(f).toEqual({ version: 1, transcripts: { extra_folders: ['/data/agent-logs', '~/exports'] } });
    expect(effectiveConfig(f, {}).get('transcripts.extra_folders')).toEqual(['/data/agent-logs', '~/exports']);
    expect(effectiveConfig(null, { ENGRAM_TRANSCRIPTS_EXTRA_FOLDERS: 'C:\\logs;D:\\more' }).get('transcripts.extra_folders')).toEqual(['C:\\logs', 'D:\\more']);
    for (const bad of ['relative/logs', ['/ok', 'not/absolute'], 42, [7]]) {
      expect(isEngramError(thrown(() => setConfigValue(null, 'transcripts.extra_folders', bad)), 'invalid-config'), JSON.stringify(bad)).toBe(true);
    }
  });

  it('refuses unknown keys with the list of valid keys', () => {
    const e = thrown(() => setConfigValue(null, 'colour', 'blue'));
    expect(isEngramError(e, 'usage')).toBe(true);
    expect((e as { hint: string }).hint).toContain('vault_path');
    expect((e as { hint: string }).hint).toContain('recall.prompt_chars');
  });

  it.each([
    ['review_after_days', 'soon'],
    ['review_after_days', '0'],
    ['review_after_days', '2.5'],
    ['backend', 'gpt'],
    ['ollama.url', 'localhost:11434'],
    ['folders.inbox', '../outside'],
    ['folders.inbox', '/abs'],
    ['vault_path', 'relative/vault'],
    ['claude.model', '   '],
  ])('refuses %s = %j', (key, value) => {
    const e = thrown(() => setConfigValue(null, key, value));
    expect(isEngramError(e, 'invalid-config')).toBe(true);
    expect((e as Error).message).toContain(key);
  });

  it('accepts paths for both platforms and ~', () => {
    for (const v of ['/home/a/Vault', 'C:\\Users\\a\\Vault', '~/Vault']) expect(setConfigValue(null, 'vault_path', v).vault_path).toBe(v);
  });

  it('unsets a key and drops empty groups', () => {
    const f = setConfigValue(setConfigValue(null, 'recall.prompt_items', 3), 'backend', 'rules');
    expect(unsetConfigValue(f, 'recall.prompt_items')).toEqual({ version: 1, backend: 'rules' });
    expect(() => unsetConfigValue(f, 'nope')).toThrow(/unknown configuration key/);
  });
});

describe('config file format', () => {
  it('parses a current file', () => {
    expect(parseConfigFile('{"version":1,"backend":"rules"}', 'config.json')).toEqual({ version: 1, backend: 'rules' });
  });
  it('refuses a newer format with a clear message', () => {
    const e = thrown(() => parseConfigFile('{"version":99}', '/h/config.json'));
    expect(isEngramError(e, 'format-version')).toBe(true);
    expect((e as Error).message).toMatch(/format version 99, newer than this engram understands \(1\)/);
  });
  it('refuses broken JSON and a missing version', () => {
    expect(isEngramError(thrown(() => parseConfigFile('{', 'c')), 'invalid-config')).toBe(true);
    expect(isEngramError(thrown(() => parseConfigFile('{"backend":"rules"}', 'c')), 'format-version')).toBe(true);
    expect(isEngramError(thrown(() => parseConfigFile('[]', 'c')), 'format-version')).toBe(true);
  });
  it('migrates older formats step by step', () => {
    const spec = {
      name: 'ledger',
      current: 3,
      migrations: {
        1: (d: Record<string, unknown>) => ({ ...d, a: 'added in 2' }),
        2: (d: Record<string, unknown>) => ({ ...d, b: 'added in 3' }),
      },
    };
    expect(upgradeFormat(spec, { version: 1 })).toEqual({ data: { version: 3, a: 'added in 2', b: 'added in 3' }, migratedFrom: 1 });
    expect(upgradeFormat(spec, { version: 3, x: 1 })).toEqual({ data: { version: 3, x: 1 } });
    expect(() => upgradeFormat({ name: 'x', current: 2 }, { version: 1 })).toThrow(/cannot migrate/);
  });
  it('reads a state file from its text: none yet, damaged (named first, as the spool classifies it), or upgraded', () => {
    const spec = { name: 'vaults/k/ledger.json', current: 2, migrations: { 1: (d: Record<string, unknown>) => d } };
    expect(readFormat(spec, undefined)).toBeUndefined();
    expect(readFormat(spec, ' \n')).toBeUndefined();
    expect(() => readFormat(spec, '{"version":1,')).toThrow(/^vaults\/k\/ledger\.json is not valid JSON$/);
    expect(() => readFormat(spec, '{"sessions":{}}')).toThrow(/^vaults\/k\/ledger\.json has no version number/);
    expect(() => readFormat(spec, '{"version":3}')).toThrow(/format version 3, newer than this engram/);
    expect(readFormat(spec, '{"version":1,"a":1}')).toEqual({ data: { version: 2, a: 1 }, migratedFrom: 1 });
  });
  it('reads the version from `format` where a file keeps it there', () => {
    const spec = { name: 'proposal p', current: 1, field: 'format' as const };
    expect(upgradeFormat(spec, { format: 1, id: 'p' })).toEqual({ data: { format: 1, id: 'p' } });
    expect(() => upgradeFormat(spec, { format: 2 })).toThrow(/proposal p has format version 2, newer than this engram/);
    expect(() => upgradeFormat(spec, { version: 1 })).toThrow(/proposal p has no version number/);
  });
});
