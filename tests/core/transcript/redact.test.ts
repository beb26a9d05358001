import { describe, expect, it } from 'vitest';
import { redactText, redactTexts, looksRandom } from '../../../src/core/transcript/redact.js';
import { samples } from './redact-samples.js';
import { opsToken } from '../../fixtures/redact-secrets.js';
import { readClaudeCode } from '../../../src/core/transcript/claude-code.js';
import { findEngramSecrets } from '../../../src/core/transcript/secret-rules.js';
import { randomString, rng } from './helpers.js';

const all = samples();
const kinds = [...new Set(all.map((s) => s.kind))];

describe('redaction: every generated sample is caught', () => {
  it('has at least 20 samples per format', async () => {
    for (const k of kinds) expect(all.filter((s) => s.kind === k).length, k).toBeGreaterThanOrEqual(20);
    expect(kinds.length).toBeGreaterThanOrEqual(17);
  });

  for (const kind of kinds) {
    it(`catches every ${kind}`, async () => {
      const missed: string[] = [];
      const own = all.filter((x) => x.kind === kind);
      const results = await redactTexts(own.map((s) => s.text));
      own.forEach((s, i) => {
        if (results[i]!.text.includes(s.secret) || Object.keys(results[i]!.counts).length === 0) missed.push(s.text);
      });
      expect(missed).toEqual([]);
    });
  }

  it('names the provider when it knows it', async () => {
    const s = all.find((x) => x.kind === 'github-token')!;
    expect((await redactText(s.text)).counts['github-token']).toBe(1);
  });

  it('keeps the surrounding text: variable names, URL user and host', async () => {
    const r = await redactText('DATABASE_URL=postgres://app:Xk9pQ2mZ7v@db.internal:5432/app');
    expect(r.text).toBe('DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app');
    const e = await redactText('export JWT_SECRET=q8Z!r2LmP0xW4vT9');
    expect(e.text).toBe('export JWT_SECRET=[REDACTED:env-assignment]');
  });

  it('redacts a private key block whole, even when it is cut off', async () => {
    const r = await redactText('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACD');
    expect(r.text).toBe('[REDACTED:private-key]');
  });

  it('does not redact twice', async () => {
    const r = await redactText('export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD');
    expect(r.text).toBe('export OPENAI_API_KEY=[REDACTED:openai-key]');
    expect(r.counts).toEqual({ 'openai-key': 1 });
  });
});

describe('redaction: leaves ordinary text alone', () => {
  const ordinary = [
    'const apiKey = process.env.ANTHROPIC_API_KEY;',
    'API_KEY=${API_KEY}',
    'export GITHUB_TOKEN=$(gh auth token)',
    'password: "your-password-here"',
    'DB_PASSWORD=changeme',
    'SECRET_KEY=<generate one with openssl rand -hex 32>',
    'connect to postgres://localhost:5432/app',
    'https://user:${PASSWORD}@example.com',
    'the token budget is 24000 tokens',
    'Authorization: Bearer ${token}',
    'const token = await getToken();',
    'sk-learn is a Python library',
    'commit 3f2a9c1b7e8d4f6a0b5c2e1d9f8a7b6c5d4e3f2a',
    'sha256-Lw8aVkZmQ3N0c2h5ZmZvcm1hdGlvbg==',
    'uuid: 5f1c2b9e-0d4a-4c8e-9a57-1b2c3d4e5f60',
    'token: string;',
    'secret_key: SecretStr = Field(...)',
    'PASSWORD_MIN_LENGTH=12',
  ];
  for (const line of ordinary) {
    it(`keeps: ${line}`, async () => {
      expect(await redactText(line)).toEqual({ text: line, counts: {} });
    });
  }

  it('looksRandom tells generated values from words and references', async () => {
    expect(looksRandom('q8Z!r2LmP0xW4vT9')).toBe(true);
    expect(looksRandom('my-service-name')).toBe(false);
    expect(looksRandom('process.env.SECRET')).toBe(false);
    expect(looksRandom('/etc/ssl/private/key.pem')).toBe(false);
  });
});

describe('redaction: private key headers in code', () => {
  it('leaves a header that no key material follows', async () => {
    const code = "if (pem.startsWith('-----BEGIN PRIVATE KEY-----')) return parsePkcs8(pem);";
    expect((await redactText(code)).text).toBe(code);
  });
  it('redacts an encrypted PEM with its Proc-Type headers', async () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\n-----END RSA PRIVATE KEY-----\nafter';
    expect((await redactText(pem)).text).toBe('[REDACTED:private-key]\nafter');
  });
});

describe('redaction: the secretlint detector', () => {
  it('catches what only its preset knows, in a batch, in each text’s own offsets', async () => {
    // A 1Password service-account token: secretlint's preset has it, Engram's rules do not.
    const r = rng(7);
    const token = opsToken((n, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789') => randomString(r, n, alphabet));
    expect(findEngramSecrets(`the token ${token}`).filter((f) => f.kind !== 'bearer-token')).toEqual([]);
    const [a, b] = await redactTexts(['nothing here', `use ${token} in CI`]);
    expect(a).toEqual({ text: 'nothing here', counts: {} });
    expect(b).toEqual({ text: 'use [REDACTED:1password-token] in CI', counts: { '1password-token': 1 } });
  });

  it('leaves no marks on the global performance timeline (they grew without bound)', async () => {
    for (let i = 0; i < 50; i++) await redactTexts([`line ${i}`, 'AWS_SECRET_ACCESS_KEY=Zq3x9Lm2Pw8Rt5Yv1Nb7Kc4Hd6Jf0Gs2Aq9We3Rt']);
    expect(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('@core')).length).toBe(0);
  });
});

describe('redaction: what the readers hand out', () => {
  it('a Claude Code session title (custom title or summary) is redacted like its turns', async () => {
    const key = `sk-ant-api03-${'Zq3x9Lm2Pw8Rt5Yv1Nb7Kc4Hd6Jf0Gs2A'.repeat(2)}AA`;
    const lines = [
      { type: 'user', uuid: 'u1', sessionId: 's1', timestamp: '2026-11-20T09:00:00.000Z', message: { role: 'user', content: 'deploy it' } },
      { type: 'custom-title', customTitle: `deploy with ${key}`, sessionId: 's1' },
    ];
    const s = await readClaudeCode([new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join('\n'))]);
    expect(s.meta.title).toBe('deploy with [REDACTED:anthropic-key]');
    expect(s.stats!.redactions).toEqual({ 'anthropic-key': 1 });
  });
});

describe('personal data in what extraction reads', () => {
  it('writes home folders relative to the home and redacts e-mail addresses unless kept', async () => {
    const r = await redactText('The config lives in /Users/soph/Work/devenv/config.toml; mail ann.lee@example.com, or C:\\Users\\bob\\src and /home/ada');
    expect(r.text).toBe('The config lives in ~/Work/devenv/config.toml; mail [REDACTED:email], or ~\\src and ~');
    expect(r.personal).toEqual({ email: 1, 'home-path': 3 });
    expect(r.counts).toEqual({});
    expect((await redactText('mail ann.lee@example.com', { keepEmails: true })).text).toBe('mail ann.lee@example.com');
  });
  it('reaches the turns a reader hands out; keepEmails (config extract.keep_emails) keeps the addresses', async () => {
    const lines = [{ type: 'user', uuid: 'u1', sessionId: 's1', timestamp: '2026-11-20T09:00:00.000Z', message: { role: 'user', content: 'no, send alerts to ops@acme.io, the config is in /Users/ann/acme/alerts.yml' } }];
    const bytes = () => [new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join('\n'))];
    expect((await readClaudeCode(bytes())).turns[0].text).toBe('no, send alerts to [REDACTED:email], the config is in ~/acme/alerts.yml');
    expect((await readClaudeCode(bytes(), { keepEmails: true })).turns[0].text).toBe('no, send alerts to ops@acme.io, the config is in ~/acme/alerts.yml');
  });
  it('leaves git remotes, package specs, URL credentials and shared folders alone', async () => {
    for (const t of ['git@github.com:foo/bar.git', 'npm i @scope/pkg@1.2.3', '/Users/Shared/data', 'user@localhost']) expect((await redactText(t)).text).toBe(t);
  });
});
