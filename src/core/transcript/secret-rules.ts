import { foldForMatching, originalSpan } from './fold.js';

// Engram's own secret rules: what the secretlint preset does not catch (CLI arguments, `.env` and
// YAML lines, connection strings, passwords in prose) and the provider shapes it does not know.
// Provider tokens are matched by their documented shapes; generic contexts (assignments, config keys,
// flags, URL passwords, headers, prose) only when the value looks generated rather than a word, a
// reference or code, to keep false positives on ordinary code at zero on the measured corpus
// (tests/core/transcript/redact-false-positives.test.ts).

/** One secret found in a text: the span to replace, and what kind of secret it is. */
export interface SecretFinding {
  start: number;
  end: number;
  kind: string;
}

interface Rule {
  kind: string;
  re: RegExp;
  /** Index of the capture group holding the secret (0 = the whole match). */
  group?: number;
  /** Extra check on the captured value. */
  check?: (value: string) => boolean;
  /** Run only on the lines that hold a secret-like keyword (the rule needs one; most lines have none). */
  keyword?: boolean;
  /** Run only when this occurs somewhere in the text. */
  hint?: RegExp;
  /** Run only when one of these strings occurs in the text (a provider's fixed prefix). */
  lit?: string[];
}

const PLACEHOLDER_RE =
  /^(?:x+|\*+|\.+|-+|_+|•+)$|your|example|placeholder|dummy|redacted|changeme|replace|xxxx|\*\*\*|\$\{|\{\{|<[a-z_-]+>|^(?:password|passwd|secret|token|null|undefined|none|true|false|string|required|optional)$/i;

/** A value that looks like a generated secret rather than a word, a path or a reference. */
export function looksRandom(v: string): boolean {
  // Lowercase words with a digit or two stuck on, joined: 1password-token, utf8-bom, v2-api (names, not keys).
  if (/^\d{0,2}[a-z]+\d{0,2}(?:[-_.]\d{0,2}[a-z]+\d{0,2}){0,4}$/.test(v)) return false;
  return notAWord(v, 8);
}

function notAWord(v: string, min: number): boolean {
  if (v.length < min || PLACEHOLDER_RE.test(v)) return false;
  if (/^[a-z]+(?:[-_.][a-z]+)*$/i.test(v)) return false; // words and identifiers: some-name, my_value
  if (/^(?:\/|\.\/|~\/|https?:)/.test(v)) return false; // paths and URLs
  if (/^[<${%([@&*]/.test(v)) return false; // templates and references: ${X}, <your key>, %(x)s, $(cmd)
  // A few words and numbers joined: sk-test-123, my_secret_2 (test doubles, not generated values)
  if (/^(?:[a-z]+|\d+)(?:[-_.](?:[a-z]+|\d+)){0,3}$/i.test(v)) return false;
  // member access (process.env.X, config.auth.token); generated values with a dot have digits
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?$/.test(v) && !/[0-9]/.test(v)) return false;
  let classes = 0;
  if (/[a-z]/.test(v)) classes++;
  if (/[A-Z]/.test(v)) classes++;
  if (/[0-9]/.test(v)) classes++;
  if (/[^A-Za-z0-9]/.test(v)) classes++;
  if (classes < 2) return v.length >= 24 && !/^(.)\1+$/.test(v) && /[0-9]/.test(v); // long hex/digit strings
  return new Set(v).size >= Math.min(6, v.length - 1);
}

/**
 * A password typed where code could also stand (an unquoted value after `=`, `:`, a flag or in prose):
 * a generated-looking value that is not code (no call, index, block or list punctuation), has a letter,
 * and is not a camelCase or dotted identifier.
 */
export function looksLikePassword(v: string): boolean {
  if (/[()[\]{};,<>]/.test(v) || !/[A-Za-z]/.test(v)) return false;
  if (/^[a-z]+(?:[A-Z][a-z]*)+$/.test(v)) return false; // camelCase identifiers: hashedPassword
  if (/^(?:\d+\.){1,3}\d+/.test(v) || /^\d+[a-z]{1,3}$/i.test(v)) return false; // versions, sizes: 1.2.3, 512mb
  return notAWord(v, 6);
}

function notTemplate(v: string): boolean {
  return !PLACEHOLDER_RE.test(v) && !/^[$%{<]/.test(v);
}

// Bounded on both sides: unbounded runs around the keyword make the match quadratic on long lines.
const NAME_CORE = 'SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CLIENT_?SECRET|AUTH_?KEY|CREDENTIALS?|_PWD|PGPASS|DSN';
const SECRET_NAME = `(?:[A-Z0-9_]{0,48}(?:${NAME_CORE})[A-Z0-9_]{0,48})`;
const secret_name = SECRET_NAME.toLowerCase();
// Keys of config files (YAML, TOML, properties, JSON): db_password, apiKey, client-secret, spring.datasource.password.
const CONFIG_KEY = '(?:[A-Za-z0-9]{1,32}[_.-]){0,4}[A-Za-z0-9]{0,16}(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|credentials?)';
// What follows a shell flag or assignment value: an unquoted word or a quoted one.
const SHELL_VALUE = `(?:"([^"\\s]{3,256})"|'([^'\\s]{3,256})'|([^\\s"'\`|;&)]{3,256}))`;

const RULES: Rule[] = [
  { kind: 'anthropic-key', lit: ['sk-ant-'], re: /\bsk-ant-[a-z0-9]{2,12}-[A-Za-z0-9_-]{32,}/g },
  { kind: 'openai-key', lit: ['sk-'], re: /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-[A-Za-z0-9]{40,64}\b/g },
  { kind: 'aws-access-key', lit: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'APKA'], re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}\b/g },
  {
    kind: 'aws-secret-key',
    // `aws_secret_access_key = X`, `"SecretAccessKey": "X"`, and as a CLI argument: `aws configure set aws_secret_access_key X`.
    re: /(aws_?secret_?(?:access_?)?key|secret_?access_?key|aws-secret-access-key)((?:["']?\s*[:=]\s*|\s+)["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 3,
    keyword: true,
  },
  { kind: 'github-token', lit: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], re: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b|\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { kind: 'gitlab-token', lit: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'gloas-', 'glsoat-', 'glft-', 'glimt-', 'glagent-'], re: /\bgl(?:pat|ptt|dt|rt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack-token', lit: ['xox', 'hooks.slack.com', 'xapp-'], re: /\bxox[abposre]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,}|\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}/g },
  { kind: 'stripe-key', lit: ['_live_', '_test_', 'whsec_'], re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b/g },
  { kind: 'google-key', lit: ['AIza', 'GOCSPX-', 'ya29.', '1//0'], re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])|\bGOCSPX-[A-Za-z0-9_-]{28}\b|\bya29\.[0-9A-Za-z_-]{20,}|\b1\/\/0[A-Za-z0-9_-]{40,}/g },
  { kind: 'npm-token', lit: ['npm_'], re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'huggingface-token', lit: ['hf_'], re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: 'sendgrid-key', lit: ['SG.'], re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'digitalocean-token', lit: ['_v1_'], re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { kind: 'shopify-token', lit: ['shpat_', 'shpss_', 'shpca_', 'shppa_'], re: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g },
  { kind: 'pypi-token', lit: ['pypi-AgE'], re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { kind: 'groq-key', lit: ['gsk_'], re: /\bgsk_[A-Za-z0-9]{48,}\b/g },
  { kind: 'xai-key', lit: ['xai-'], re: /\bxai-[A-Za-z0-9]{60,}\b/g },
  { kind: 'linear-key', lit: ['lin_api_'], re: /\blin_api_[A-Za-z0-9]{40}\b/g },
  { kind: 'databricks-token', lit: ['dapi'], re: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g },
  { kind: 'telegram-token', lit: [':AA'], re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
  { kind: 'twilio-key', lit: ['SK'], re: /\bSK[0-9a-f]{32}\b/g },
  { kind: 'mailgun-key', lit: ['key-'], re: /\bkey-[0-9a-f]{32}\b/g },
  { kind: 'doppler-token', lit: ['dp.'], re: /\bdp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_-]{40,}/g },
  { kind: 'vault-token', lit: ['hvs.', 'hvb.'], re: /\bhv[sb]\.[A-Za-z0-9_-]{24,}/g },
  { kind: 'jwt', lit: ['eyJ'], re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g },
  {
    kind: 'azure-key',
    lit: ['AccountKey=', 'SharedAccessKey=', 'SharedSecret=', 'Password='],
    re: /\b(AccountKey|SharedAccessKey|SharedSecret|Password)(=)([A-Za-z0-9+/]{20,}={0,2})(?![A-Za-z0-9+/=])/g,
    group: 3,
  },
  { kind: 'azure-key', lit: ['sig='], re: /([?&]sig=)([A-Za-z0-9%+/]{20,}(?:%3D|=){0,2})/g, group: 2 },
  {
    // scheme://user:password@host, including an empty user (redis://:pw@host)
    kind: 'url-password',
    lit: ['://'],
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s:/@"'`]{0,64}):([^\s/@"'`]{3,128})@(?=[A-Za-z0-9.[-])/g,
    group: 3,
    check: notTemplate,
  },
  {
    // JDBC / ODBC / ADO.NET connection strings: ?user=app&password=X, ;Password=X;
    kind: 'connection-password',
    re: /([?&;]\s*(?:password|passwd|pwd|pass)=)([^&;\s"'`]{3,256})/gi,
    group: 2,
    check: notTemplate,
    keyword: true,
  },
  {
    // .env lines and inline shell assignments: export FOO_SECRET=X, PGPASSWORD=X psql, db_password=X
    kind: 'env-assignment',
    re: new RegExp(`(?:^|(?<=[\\s;&|(]))((?:export[ \\t]+)?${SECRET_NAME}[ \\t]*=[ \\t]*)(["']?)([^\\s"'#][^\\s"']{5,511})\\2`, 'gm'),
    group: 3,
    check: looksRandom,
    keyword: true,
  },
  {
    kind: 'env-assignment',
    re: new RegExp(`(?:^|(?<=[\\s;&|(]))((?:export[ \\t]+)?${secret_name}=)(["']?)([^\\s"'#][^\\s"']{5,511})\\2`, 'gm'),
    group: 3,
    check: looksLikePassword,
    keyword: true,
  },
  {
    // Quoted values after a secret-named key in code and config: password = "X", "apiKey": "X"
    kind: 'config-secret',
    re: new RegExp(`(["']?\\b${CONFIG_KEY}(?:_id)?["']?\\s*(?:[:=]|=>|:=)\\s*)(["'])([^"'\\s]{8,512})\\2`, 'gi'),
    group: 3,
    check: looksRandom,
    keyword: true,
  },
  {
    // YAML / TOML / properties with an unquoted value, on its own line or quoted in a sentence: `password: hunter2Xq9`, `api_key = X`
    kind: 'config-secret',
    re: new RegExp(`(?:^|(?<=\\s))((?:- )?${CONFIG_KEY}[ \\t]*[:=][ \\t]*)([^\\s"'#][^\\s"']{5,255})(?=\\s|$)`, 'gim'),
    group: 2,
    check: looksLikePassword,
    keyword: true,
  },
  {
    // --password X, --password=X, --client-secret 'X', --token X
    kind: 'cli-password',
    re: new RegExp(`(?<![\\w-])(?:--(?:[a-z]+-){0,3}(?:password|passwd|pass|token|secret|api-?key|access-key|secret-key|auth-token)(?:=|[ \\t]+))${SHELL_VALUE}`, 'g'),
    check: looksLikePassword,
    keyword: true,
  },
  {
    // mysql -pX, mysql -p'X', docker login -p X, sshpass -p X, and a quoted -p'X' anywhere
    kind: 'cli-password',
    re: new RegExp(`(?:\\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\\b[^\\n]{0,200}?[ \\t]-p|\\b(?:docker|podman|helm|oras)[ \\t]+(?:registry[ \\t]+)?login\\b[^\\n]{0,200}?[ \\t]-p[ \\t]+|\\bsshpass[ \\t]+-p[ \\t]*)${SHELL_VALUE}`, 'g'),
    check: looksLikePassword,
    hint: /mysql|mariadb|login|sshpass/i,
  },
  { kind: 'cli-password', lit: ['-p"', "-p'"], re: /(?<![\w-])-p(?:"([^"\s]{6,256})"|'([^'\s]{6,256})')/g, check: looksLikePassword },
  {
    // curl -u user:password, curl --user user:password
    kind: 'cli-password',
    re: /\b(?:curl|wget|http)\b[^\n]{0,200}?[ \t](?:-u|--user|--http-user|-a|--auth)(?:=|[ \t]*)["']?[^\s:"']{1,64}:([^\s"'@,;]{3,128})/g,
    group: 1,
    check: (v) => notTemplate(v) && /[A-Za-z]/.test(v) && !/^\d+$/.test(v),
    hint: /curl|wget|http/i,
  },
  {
    // .npmrc: //registry.npmjs.org/:_authToken=X, _auth=X, _password=X
    kind: 'npmrc-auth',
    re: /((?:^|[\s:])_(?:authToken|auth|password)[ \t]*=[ \t]*)(["']?)([^\s"']{8,512})\2/gm,
    group: 3,
    check: notTemplate,
    hint: /_auth|_password/,
  },
  {
    kind: 'authorization-header',
    hint: /authoriz/i,
    re: /(\b(?:Authorization|Proxy-Authorization)["']?\s*[:=]\s*["']?(?:Bearer|Basic|Token|Digest)\s+)([A-Za-z0-9_\-.=+/~]{8,})/gi,
    group: 2,
    check: notTemplate,
  },
  {
    kind: 'api-key-header',
    hint: /-key|-token/i,
    re: /(\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key)["']?\s*:\s*["']?)([A-Za-z0-9_\-.=+/]{16,})/gi,
    group: 2,
    check: looksRandom,
  },
  {
    // Docker's config.json (`"auths": {"registry": {"auth": "<base64 user:password>"}}`), and any `auth` or
    // `basic_auth` key whose value is base64 of user:password.
    kind: 'basic-auth-credentials',
    hint: /auth/i,
    re: /(["']?\b(?:auth|basic_?auth|basicAuth|http_?auth|proxy_?auth)["']?\s*[:=]\s*["']?)([A-Za-z0-9+/]{8,512}={0,2})(?![A-Za-z0-9+/=])/gi,
    group: 2,
    check: isBase64Credentials,
  },
  {
    // Docker's identity and registry tokens (config.json): long-lived refresh tokens for a registry.
    kind: 'registry-token',
    hint: /identitytoken|registrytoken/i,
    re: /(["']?\b(?:identitytoken|registrytoken)["']?\s*:\s*["'])([^"'\s]{16,4096})["']/gi,
    group: 2,
    check: notTemplate,
  },
  { kind: 'bearer-token', lit: ['Bearer', 'Basic', 'token'], re: /\b(Bearer|Basic|token)(\s+)([A-Za-z0-9_\-.=+/]{20,})/g, group: 3, check: looksRandom },
  {
    // A password written in prose: "my password is X", "the pw is X", "changed the password to X"
    kind: 'prose-password',
    re: /\b(?:password|passwd|passphrase|passcode|pw|pwd|pin)(?:\s+(?:for|of|on)\s+[\w.@-]{1,40})?\s+(?:is|was|is now|will be|should be|would be|=|:|to|is set to)\s*[:=]?\s*["'`“]?([^\s"'`”]{6,128}?)["'`”]?(?=[\s.,;:!?)]*(?:$|\s))/gim,
    group: 1,
    check: (v) => looksLikePassword(v.replace(/[.,;:!?]+$/, '')),
    keyword: true,
  },
];

/** A base64 value that decodes to printable `user:password` (both sides non-empty). */
function isBase64Credentials(v: string): boolean {
  if (v.length % 4 === 1) return false;
  let decoded: string;
  try {
    decoded = atob(v.padEnd(v.length + ((4 - (v.length % 4)) % 4), '='));
  } catch {
    return false;
  }
  const colon = decoded.indexOf(':');
  return colon > 0 && colon < decoded.length - 1 && /^[\x20-\x7E]+$/.test(decoded);
}

// Cheap pre-check so most text skips all the rules.
const HINT_RE =
  /-----BEGIN|sk-|sk_|rk_|pk_|\bA[A-Z]{3}[A-Z2-7]{16}\b|gh[pousr]_|github_pat_|\bgl[a-z]+-|xox|xapp-|whsec_|AIza|GOCSPX|ya29\.|1\/\/0|npm_|hf_|SG\.|_v1_|shp|pypi-|gsk_|xai-|lin_api|dapi|:AA|SK[0-9a-f]{32}|key-|dp\.|hv[sb]\.|eyJ|:\/\/|secret|pass|pw|pin\b|key|token|credential|dsn|bearer|basic|-p|-u|sig=|auth|identitytoken|registrytoken/i;

// Every keyword a `keyword` rule needs on its line (the names, flags and prose words those rules match).
const KEYWORD_RE = /pass|pwd|pw\b|\bpin\b|secret|token|key|credential|dsn/i;

/**
 * Every secret Engram's own rules find in `text` (spans may overlap; the caller merges them). Text with characters
 * beyond ASCII is also matched folded (fold.ts: zero-width characters and soft hyphens removed, full-width and
 * look-alike characters as their ASCII twins), each finding mapped back to the original span.
 */
export function findEngramSecrets(text: string): SecretFinding[] {
  const found = findInText(text);
  const folded = foldForMatching(text);
  if (folded) {
    for (const f of findInText(folded.text)) found.push({ ...originalSpan(folded, f.start, f.end), kind: f.kind });
  }
  return found;
}

function findInText(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  if (!text || !HINT_RE.test(text)) return found;
  if (text.includes('-----BEGIN')) findPrivateKeys(text, found);
  let segments: [number, number][] | undefined;
  for (const rule of RULES) {
    if (rule.lit && !rule.lit.some((l) => text.includes(l))) continue;
    if (rule.hint && !rule.hint.test(text)) continue;
    if (rule.keyword) {
      segments ??= keywordSegments(text);
      for (const [from, to] of segments) scanRule(rule, text.slice(from, to), from, found);
    } else scanRule(rule, text, 0, found);
  }
  return found;
}

function scanRule(rule: Rule, text: string, base: number, found: SecretFinding[]): void {
  rule.re.lastIndex = 0;
  for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
    if (m[0] === '') {
      rule.re.lastIndex++;
      continue;
    }
    // The secret: the rule's group, or the first group that matched (alternative quotings), or the whole match.
    const value = rule.group !== undefined ? m[rule.group] : (m.slice(1).find((g) => g !== undefined) ?? m[0]);
    if (!value || (rule.check && !rule.check(value))) continue;
    const at = base + m.index + m[0].lastIndexOf(value);
    found.push({ start: at, end: at + value.length, kind: rule.kind });
  }
}

/** The runs of lines holding a keyword (with the line after each, for a value on the next line). */
function keywordSegments(text: string): [number, number][] {
  const out: [number, number][] = [];
  const re = new RegExp(KEYWORD_RE.source, 'gi');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = text.lastIndexOf('\n', m.index) + 1;
    let end = text.indexOf('\n', m.index);
    end = end < 0 ? text.length : end;
    const next = text.indexOf('\n', end + 1);
    const to = end >= text.length ? end : next < 0 ? text.length : next;
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([start, to]);
    re.lastIndex = end;
  }
  return out;
}

const KEY_BODY_RE = /^[ \t]*(?:\r?\n|(?:\\r)?\\n)(?:[A-Za-z-]+: [^\n]*?(?:\n|\\n))*\s*(?:\\n)?[A-Za-z0-9+/=]{20,}/;
const KEY_HEADER_RE = /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/g;

// Private key blocks, found with indexOf rather than one regex (linear on any input). A block with
// no END line (cut off) is redacted to the end of the text: what follows is key material. The body
// may be on real lines or `\n`-escaped inside a JSON string (a GCP service-account key).
function findPrivateKeys(text: string, found: SecretFinding[]): void {
  KEY_HEADER_RE.lastIndex = 0;
  for (let m = KEY_HEADER_RE.exec(text); m; m = KEY_HEADER_RE.exec(text)) {
    // A header alone (PEM-handling code, docs) is not a key: key material must follow.
    if (!KEY_BODY_RE.test(text.slice(m.index + m[0].length, m.index + m[0].length + 400))) continue;
    const endAt = text.indexOf('-----END ', m.index + m[0].length);
    const close = endAt < 0 ? -1 : text.indexOf('-----', endAt + 9);
    const to = close < 0 ? text.length : close + 5;
    found.push({ start: m.index, end: to, kind: 'private-key' });
    KEY_HEADER_RE.lastIndex = to;
    if (to >= text.length) break;
  }
}
