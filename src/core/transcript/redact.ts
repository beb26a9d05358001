// Secret redaction: applied to every turn's text before it leaves the machine or reaches the vault.
// Provider tokens are matched by their documented shapes; generic assignments (`.env` lines, config
// keys, URL passwords, bearer tokens) only when the value looks random, to keep false positives on
// ordinary code under 1 per 10,000 lines (measured in tests/core/transcript/redact-false-positives).

export interface RedactResult {
  text: string;
  /** Replacements made, by kind. */
  counts: Record<string, number>;
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Index of the capture group holding the secret (0 = the whole match). */
  group?: number;
  /** Extra check on the captured value. */
  check?: (value: string) => boolean;
}

const PLACEHOLDER_RE = /^(?:x+|\*+|\.+|-+|_+)$|your|example|placeholder|dummy|redacted|changeme|replace|xxxx|\$\{|\{\{|<[a-z_-]+>|^(?:password|secret|token|null|undefined|none|true|false)$/i;

/** A value that looks like a generated secret rather than a word, a path or a reference. */
export function looksRandom(v: string): boolean {
  if (v.length < 8 || PLACEHOLDER_RE.test(v)) return false;
  if (/^[a-z]+(?:[-_.][a-z]+)*$/i.test(v)) return false; // words and identifiers: some-name, my_value
  if (/^(?:\/|\.\/|~\/|https?:)/.test(v)) return false; // paths and URLs
  if (/^[<${%([]/.test(v)) return false;
  // A few words and numbers joined: sk-test-123, my_secret_2 (test doubles, not generated values)
  if (/^(?:[a-z]+|\d+)(?:[-_.](?:[a-z]+|\d+)){0,3}$/i.test(v)) return false; // templates and references: ${X}, <your key>, %(x)s
  // member access (process.env.X, config.auth.token); generated values with a dot have digits
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?$/.test(v) && !/[0-9]/.test(v)) return false;
  let classes = 0;
  if (/[a-z]/.test(v)) classes++;
  if (/[A-Z]/.test(v)) classes++;
  if (/[0-9]/.test(v)) classes++;
  if (/[^A-Za-z0-9]/.test(v)) classes++;
  if (classes < 2) return v.length >= 24 && !/^(.)\1+$/.test(v) && /[0-9]/.test(v); // long hex/digit strings
  return new Set(v).size >= 6;
}

// Bounded on both sides: unbounded runs around the keyword make the match quadratic on long lines.
const SECRET_NAME = '(?:[A-Z0-9_]{0,48}(?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CLIENT_?SECRET|AUTH_?KEY|CREDENTIALS?|_PWD|DSN)[A-Z0-9_]{0,48})';

const RULES: Rule[] = [
  { kind: 'anthropic-key', re: /\bsk-ant-[a-z0-9]{2,12}-[A-Za-z0-9_-]{32,}/g },
  { kind: 'openai-key', re: /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-[A-Za-z0-9]{40,64}\b/g },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}\b/g },
  {
    kind: 'aws-secret-key',
    re: /(aws_?secret_?(?:access_?)?key|secret_?access_?key)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 3,
  },
  { kind: 'github-token', re: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { kind: 'gitlab-token', re: /\bgl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', re: /\bxox[abposre]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,}/g },
  { kind: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b/g },
  { kind: 'google-key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])|\bGOCSPX-[A-Za-z0-9_-]{28}\b|\bya29\.[0-9A-Za-z_-]{20,}/g },
  { kind: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'huggingface-token', re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: 'sendgrid-key', re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'digitalocean-token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: 'shopify-token', re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g },
  { kind: 'pypi-token', re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'groq-key', re: /\bgsk_[A-Za-z0-9]{48,}\b/g },
  { kind: 'xai-key', re: /\bxai-[A-Za-z0-9]{60,}\b/g },
  { kind: 'linear-key', re: /\blin_api_[A-Za-z0-9]{40}\b/g },
  { kind: 'databricks-token', re: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g },
  { kind: 'telegram-token', re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
  { kind: 'twilio-key', re: /\bSK[0-9a-f]{32}\b/g },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g },
  {
    kind: 'url-password',
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s:/@"'`]{1,64}):([^\s/@"'`]{3,128})@(?=[A-Za-z0-9.[-])/g,
    group: 3,
    check: (v) => !PLACEHOLDER_RE.test(v) && !/^[$%{<]/.test(v),
  },
  {
    kind: 'env-assignment',
    re: new RegExp(`^([ \\t]*(?:export[ \\t]+)?${SECRET_NAME}[ \\t]*=[ \\t]*)(["']?)([^\\s"'#]{8,512})\\2`, 'gm'),
    group: 3,
    check: looksRandom,
  },
  {
    kind: 'config-secret',
    re: /(["']?\b(?:password|passwd|passphrase|secret|client_?secret|api_?key|apikey|access_?token|auth_?token|refresh_?token|private_?key|secret_?key)["']?\s*(?:[:=]|=>|:=)\s*)(["'])([^"'\s]{8,512})\2/gi,
    group: 3,
    check: looksRandom,
  },
  { kind: 'bearer-token', re: /\b(Bearer|Basic|token)(\s+)([A-Za-z0-9_\-.=+/]{20,})/g, group: 3, check: looksRandom },
];

// Cheap pre-check so most text skips all the rules.
const HINT_RE = /-----BEGIN|sk-|sk_|rk_|\bA[A-Z]{3}[A-Z2-7]{16}\b|gh[pousr]_|github_pat_|\bgl[a-z]+-|xox|whsec_|AIza|GOCSPX|ya29\.|npm_|hf_|SG\.|_v1_|shp|pypi-|gsk_|xai-|lin_api|dapi|:AA|SK[0-9a-f]{32}|eyJ|:\/\/|secret|passw|passphrase|key|token|credential|pwd|dsn|bearer|basic/i;

export function redactSecrets(text: string): RedactResult {
  const counts: Record<string, number> = {};
  if (!text || !HINT_RE.test(text)) return { text, counts };
  let out = text.includes('-----BEGIN') ? redactPrivateKeys(text, counts) : text;
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    if (!rule.re.test(out)) continue;
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (...m: unknown[]) => {
      const whole = m[0] as string;
      const g = rule.group ?? 0;
      const value = (m[g] as string | undefined) ?? '';
      if (rule.check && !rule.check(value)) return whole;
      counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      const mark = `[REDACTED:${rule.kind}]`;
      if (g === 0) return mark;
      // Keep everything around the secret (the variable name, the quotes).
      const idx = whole.lastIndexOf(value);
      return whole.slice(0, idx) + mark + whole.slice(idx + value.length);
    });
  }
  return { text: out, counts };
}

const KEY_BODY_RE = /^[ \t]*\r?\n(?:[A-Za-z-]+: [^\n]*\n)*\s*[A-Za-z0-9+/=]{20,}/;
const KEY_HEADER_RE = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;

// Private key blocks, found with indexOf rather than one regex (linear on any input). A block with
// no END line (cut off) is redacted to the end of the text: what follows is key material.
function redactPrivateKeys(text: string, counts: Record<string, number>): string {
  let out = '';
  let from = 0;
  KEY_HEADER_RE.lastIndex = 0;
  for (let m = KEY_HEADER_RE.exec(text); m; m = KEY_HEADER_RE.exec(text)) {
    // A header alone (PEM-handling code, docs) is not a key: key material must follow.
    if (!KEY_BODY_RE.test(text.slice(m.index + m[0].length, m.index + m[0].length + 400))) continue;
    const endAt = text.indexOf('-----END ', m.index + m[0].length);
    const close = endAt < 0 ? -1 : text.indexOf('-----', endAt + 9);
    out += `${text.slice(from, m.index)}[REDACTED:private-key]`;
    counts['private-key'] = (counts['private-key'] ?? 0) + 1;
    from = close < 0 ? text.length : close + 5;
    KEY_HEADER_RE.lastIndex = from;
    if (from >= text.length) break;
  }
  return out + text.slice(from);
}

export function addCounts(into: Record<string, number>, add: Record<string, number>): void {
  for (const [k, v] of Object.entries(add)) into[k] = (into[k] ?? 0) + v;
}
