// "Did you mean": a typo of a command, an option or a configuration key names the one meant; a word that is not a
// typo of anything names nothing.
import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/core/suggest.js';
import { CONFIG_KEY_NAMES, effectiveConfig, setConfigValue } from '../../src/core/config.js';

const COMMANDS = ['configure', 'check', 'serve', 'mcp', 'extract', 'import', 'status', 'setup', 'search', 'review', 'restructure', 'doctor', 'install', 'uninstall'];

describe('did you mean', () => {
  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('hoosk', 'hooks')).toBe(1);
    expect(editDistance('statsu', 'status')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('names the command a typo meant', () => {
    expect(didYouMean('stauts', COMMANDS)).toBe('status');
    expect(didYouMean('restrucure', COMMANDS)).toBe('restructure');
    expect(didYouMean('docter', COMMANDS)).toBe('doctor');
    expect(didYouMean('Status', COMMANDS)).toBe('status');
  });

  it('names nothing for a word that is not a typo of any', () => {
    expect(didYouMean('banana', COMMANDS)).toBeUndefined();
    expect(didYouMean('x', COMMANDS)).toBeUndefined();
    expect(didYouMean('status', COMMANDS)).toBeUndefined();
  });

  it('names the full key for its last part alone, or a misspelt one', () => {
    expect(didYouMean('prompt_items', CONFIG_KEY_NAMES)).toBe('recall.prompt_items');
    expect(didYouMean('hooks.injcet', CONFIG_KEY_NAMES)).toBe('hooks.inject');
    expect(didYouMean('backnd', CONFIG_KEY_NAMES)).toBe('backend');
  });

  it('config.json typos and `configure` typos are named with the key meant', () => {
    const c = effectiveConfig({ version: 1, backnd: 'rules', hooks: { injcet: false } }, {});
    expect(c.problems).toContain('config.json: unknown key backnd (ignored); did you mean "backend"?');
    expect(c.problems).toContain('config.json: unknown key hooks.injcet (ignored); did you mean "hooks.inject"?');
    expect(() => setConfigValue(null, 'recall.prompt_item', 3)).toThrow('unknown configuration key "recall.prompt_item"; did you mean "recall.prompt_items"?');
  });
});
