// Every format of the fake-secrets set is redacted: the value never appears in the output, and the
// counts name the kind of secret, never the value. Lines that only talk about secrets stay as they are.
import { describe, expect, it } from 'vitest';
import { redactTexts } from '../../../src/core/transcript/redact.js';
import { SECRET_FREE_LINES, secretSamples } from '../../fixtures/redact-secrets.js';

const samples = secretSamples();

describe('redaction: the fake-secrets set', () => {
  it('has at least 40 samples', () => {
    expect(samples.length).toBeGreaterThanOrEqual(40);
  });

  it.each([4242, 1, 2, 3, 4, 5, 6, 7])('redacts every sample (seed %i), each batch or alone, and names its kind', async (seed) => {
    const set = secretSamples(seed);
    const batch = await redactTexts(set.map((s) => s.text));
    const missed: string[] = [];
    for (const [i, s] of set.entries()) {
      for (const r of [batch[i]!, (await redactTexts([s.text]))[0]!]) {
        if (r.text.includes(s.secret)) missed.push(`${s.format}: leaked in ${r.text}`);
        else if (!r.counts[s.kind]) missed.push(`${s.format}: counted as ${JSON.stringify(r.counts)}, expected ${s.kind}`);
        for (const k of Object.keys(r.counts)) if (k.includes(s.secret) || s.secret.includes(k)) missed.push(`${s.format}: kind ${k} holds the value`);
      }
    }
    expect(missed).toEqual([]);
  });

  it('keeps the text around the secret', async () => {
    const byFormat = new Map(samples.map((s) => [s.format, s]));
    const [pg, aws, yaml, mysql] = await redactTexts(['postgres url', 'aws secret as CLI argument', 'yaml password', 'mysql -pSECRET'].map((f) => byFormat.get(f)!.text));
    expect(pg!.text).toBe('DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app');
    expect(aws!.text).toBe('aws configure set aws_secret_access_key [REDACTED:aws-secret-key]');
    expect(yaml!.text).toBe('database:\n  host: db.internal\n  password: [REDACTED:config-secret]\n  port: 5432');
    expect(mysql!.text).toBe('mysql -u root -p[REDACTED:cli-password] -h db shop < dump.sql');
  });

  it('redacts every secret of one text holding them all', async () => {
    const all = samples.map((s) => s.text).join('\n\n');
    const [r] = await redactTexts([all]);
    expect(samples.filter((s) => r!.text.includes(s.secret)).map((s) => s.format)).toEqual([]);
  });
});

describe('redaction: text about secrets, without one', () => {
  for (const line of SECRET_FREE_LINES) {
    it(`keeps: ${line}`, async () => {
      expect((await redactTexts([line]))[0]).toEqual({ text: line, counts: {} });
    });
  }
});
