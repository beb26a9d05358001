// Secrets hidden from the rules by characters a reader does not see (zero-width characters, soft hyphens) or by
// look-alikes (full-width letters), and credentials stored base64-encoded in known keys: Docker's config.json `auth`
// and its identity tokens.
import { describe, expect, it } from 'vitest';
import { redactText } from '../../../src/core/transcript/redact.js';

const b64 = (s: string) => btoa(s);

describe('redaction: base64 credentials in known keys', () => {
  it('Docker config.json `auth` (base64 of user:password), as printed by `cat ~/.docker/config.json`', async () => {
    const auth = b64('deploybot:Xk9#mQ2vL7pR');
    const text = `{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "${auth}"\n    },\n    "ghcr.io": { "auth": "${b64('me:ghp_notreally123456')}" }\n  }\n}`;
    const r = await redactText(text);
    expect(r.text).not.toContain(auth);
    expect(r.text).not.toContain(b64('me:ghp_notreally123456'));
    expect(r.text).toContain('"https://index.docker.io/v1/"');
    expect(r.counts['basic-auth-credentials']).toBe(2);
  });

  it('the same in YAML and with an unpadded value', async () => {
    const auth = b64('ci:s3cr3t-Pa55').replace(/=+$/, '');
    const r = await redactText(`registry:\n  basic_auth: ${auth}\n`);
    expect(r.text).not.toContain(auth);
  });

  it('Docker identity and registry tokens', async () => {
    const token = 'e4b1c2d3-9f8a-4b7c-8d6e-5f4a3b2c1d0e.Zx9Qw8Er7Ty6';
    const r = await redactText(`{"auths":{"myreg.example.com":{"identitytoken":"${token}"}}}`);
    expect(r.text).not.toContain(token);
  });

  it('leaves an `auth` value that is not base64 credentials alone', async () => {
    for (const text of ['auth: required', '"auth": "oauth2"', 'auth = "dGVzdGluZw=="' /* "testing": no colon */, 'const auth = createAuth(config);']) {
      expect((await redactText(text)).text, text).toBe(text);
    }
  });
});

describe('redaction: secrets hidden with invisible or look-alike characters', () => {
  const key = 'sk-ant-api03-' + 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEF';
  const forms: Record<string, string> = {
    'zero-width space inside': key.slice(0, 20) + '\u200B' + key.slice(20),
    'soft hyphen inside': key.slice(0, 10) + '\u00AD' + key.slice(10),
    'full-width prefix': '\uFF53\uFF4B-ant-' + key.slice(7),
    'word joiners throughout': key.split('').join('\u2060'),
  };
  for (const [name, hidden] of Object.entries(forms)) {
    it(name, async () => {
      // In prose, where only the key's own shape gives it away (no variable name, no keyword).
      const r = await redactText(`I used ${hidden} for the demo, then rotated it.`);
      expect(r.text).toContain('[REDACTED:anthropic-key]');
      // Nothing of the key's body survives, and the text around it does.
      expect(r.text.replace(/[\u200B\u2060\u00AD]/g, '')).not.toMatch(/AbCdEfGh|0123456789/);
      expect(r.text).toMatch(/^I used \[REDACTED:anthropic-key\] for the demo, then rotated it\.$/);
    });
  }

  it('a password in prose with a zero-width character inside the keyword', async () => {
    const r = await redactText('the pass\u200Bword is Qz8!vR2#kLm9');
    expect(r.text).not.toContain('Qz8!vR2#kLm9');
  });
});
