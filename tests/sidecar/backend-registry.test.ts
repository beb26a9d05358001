// One registry of backends: every name config.json takes makes a backend of that name, says where its credentials come
// from and whether it can run; a name it does not know is refused with the names it does.
import { describe, expect, it } from 'vitest';
import { BACKENDS, effectiveConfig, type BackendName } from '../../src/core/config.js';
import { EngramError } from '../../src/core/errors.js';
import { BACKEND_ENTRIES, backendCredentials, createBackend } from '../../sidecar/hosting/backends.js';
import { checkBackend } from '../../sidecar/hosting/backend-check.js';

const config = effectiveConfig({ version: 1, openai: { url: 'http://127.0.0.1:9/v1' } }, {});
const env = { PATH: '', HOME: '/nonexistent-home', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-test' };

describe('the backend registry', () => {
  it.each(BACKENDS.filter((b) => b !== 'claude'))('%s: made, credentials named, checked', (name) => {
    expect(createBackend(name, config, { env }).name).toBe(name);
    expect(backendCredentials(name, config, env).source).not.toBe('none');
    expect(checkBackend(config, env, name).ok).toBe(true);
  });

  it('claude without its CLI: made (it fails at its first call), and the check names the ways out', () => {
    expect(createBackend('claude', config, { env }).name).toBe('claude');
    const check = checkBackend(config, env, 'claude');
    expect(check.ok).toBe(false);
    expect(check.choices.join('\n')).toMatch(/engram configure backend rules/);
  });

  it('whether a backend is paid is its entry\'s word, and the backend made carries the same (openai by its URL)', () => {
    const at = (url: string) => effectiveConfig({ version: 1, openai: { url } }, {});
    const expected: [string, boolean][] = [['https://api.openai.com/v1', true], ['https://openrouter.ai/api/v1', true], ['http://127.0.0.1:8080/v1', false], ['http://localhost:1234/v1', false]];
    for (const [url, paid] of expected) {
      expect(BACKEND_ENTRIES.openai.paid(at(url), env)).toBe(paid);
      expect(createBackend('openai', at(url), { env: { ...env, OPENAI_API_KEY: 'k' } }).paid).toBe(paid);
    }
    for (const name of BACKENDS) expect(createBackend(name, config, { env }).paid, name).toBe(BACKEND_ENTRIES[name].paid(config, env));
    // claude bills per token on an API key, and runs on the subscription without one.
    const login = { ...env, ANTHROPIC_API_KEY: '' };
    expect([BACKEND_ENTRIES.claude.paid(config, env), BACKEND_ENTRIES.claude.paid(config, login)]).toEqual([true, false]);
    expect(createBackend('claude', config, { env: login }).paid).toBe(false);
  });

  it('refuses a name it does not know, listing the ones it does', () => {
    const make = () => createBackend('gemini' as BackendName, config, { env });
    expect(make).toThrow(EngramError);
    expect(make).toThrow(/unknown backend "gemini"/);
    expect(checkBackend(config, env, 'gemini' as BackendName).ok).toBe(false);
  });
});
