// The secretlint detector (its recommended preset): the provider shapes a maintained project keeps up
// to date, run over a batch of texts in one call. The preset imports `node:path` at its top for
// message formatting and loads `node:fs` only for a file path, which Engram never passes: it runs on
// text alone, so it works in both hosts.
import type { lintSource as LintSource } from '@secretlint/core';
import type { SecretFinding } from './secret-rules.js';

/** A secretlint finding whose span is a whole URL: Engram's url rules name the password inside. */
export interface DetectorFinding extends SecretFinding {
  coarse?: boolean;
}

interface Loaded {
  lintSource: typeof LintSource;
  config: Parameters<typeof LintSource>[0]['options']['config'];
}
let loading: Promise<Loaded> | undefined;

// Loaded on first use (about 0.3 s of module loading): commands that never redact do not pay for it.
function load(): Promise<Loaded> {
  loading ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend'), import('@secretlint/profiler')]).then(([core, preset, profiler]) => {
    // @secretlint/core marks every rule run on the global performance timeline, and its profiler keeps every
    // mark (and searches them linearly) for the life of the process: measured, a long session's parse got
    // 15x slower and the marks grew without bound. Engram never reads the profile: marking is switched off.
    profiler.secretLintProfiler.mark = () => undefined;
    return { lintSource: core.lintSource, config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: preset.creator }] } };
  });
  return loading;
}

// Kind names shared with Engram's rules where the secret is the same.
const KIND_BY_MESSAGE: Record<string, string> = {
  AWSAccessKeyID: 'aws-access-key',
  AWSSecretAccessKey: 'aws-secret-key',
  AWSAccountID: 'aws-account-id',
  GITHUB_TOKEN: 'github-token',
  NPM_ACCESS_TOKEN: 'npm-token',
  SLACK_TOKEN: 'slack-token',
  IncomingWebhook: 'slack-token',
  PrivateKey: 'private-key',
  PrivateKeyJSON: 'private-key',
  BasicAuth: 'url-password',
};
const KIND_BY_RULE: Record<string, string> = {
  '1password': '1password-token',
  openai: 'openai-key',
  anthropic: 'anthropic-key',
  linear: 'linear-key',
  sendgrid: 'sendgrid-key',
  shopify: 'shopify-token',
  github: 'github-token',
  npm: 'npm-token',
  slack: 'slack-token',
  privatekey: 'private-key',
  gcp: 'private-key',
  basicauth: 'url-password',
  'database-connection-string': 'url-password',
};
const COARSE_RULES = new Set(['basicauth', 'database-connection-string']);

// Texts are joined into one source per batch (one call instead of one per turn); a finding that
// crosses the separator is cut into the texts it touches.
const SEP = '\n\n';

/** Secrets the secretlint preset finds in each text, in the texts' own offsets. */
export async function findSecretlintSecrets(texts: string[]): Promise<DetectorFinding[][]> {
  const out: DetectorFinding[][] = texts.map(() => []);
  const starts: number[] = [];
  let pos = 0;
  for (const t of texts) {
    starts.push(pos);
    pos += t.length + SEP.length;
  }
  const content = texts.join(SEP);
  if (!content.trim()) return out;
  const { lintSource, config } = await load();
  const result = await lintSource({
    source: { content, filePath: '', ext: '.txt', contentType: 'text' },
    options: { config, noPhysicFilePath: true, locale: 'en' },
  });
  for (const m of result.messages) {
    // The reported range does not always cover the secret (the AWS rule reports the match start with
    // the key's length): the values the rule reports are the secret, so those spans are redacted.
    let [start, end] = m.range;
    let valueStart = Infinity;
    let valueEnd = -1;
    for (const v of Object.values(m.data ?? {})) {
      if (typeof v !== 'string' || v.length < 8) continue;
      const at = content.indexOf(v, Math.max(0, start - v.length));
      if (at >= 0 && at <= end) {
        valueStart = Math.min(valueStart, at);
        valueEnd = Math.max(valueEnd, at + v.length);
      }
    }
    if (valueEnd >= 0) [start, end] = [valueStart, valueEnd];
    const rule = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
    const kind = KIND_BY_MESSAGE[m.messageId] ?? KIND_BY_RULE[rule] ?? `secretlint-${rule}`;
    for (let i = 0; i < texts.length; i++) {
      const s = Math.max(start, starts[i]);
      const e = Math.min(end, starts[i] + texts[i].length);
      if (s < e) out[i].push({ start: s - starts[i], end: e - starts[i], kind, coarse: COARSE_RULES.has(rule) || undefined });
    }
  }
  return out;
}
