// Realistic secret samples, generated (never real keys): per format, at least 20 values, each placed
// in a context where such a secret turns up in a session (shell, .env, JSON, code, prose, curl).
import { ALNUM, B64, HEX, UPPER_NUM, URLSAFE, pick, randomString, rng } from './helpers.js';

export interface Sample {
  kind: string;
  secret: string;
  text: string;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const LETTERS = `${LOWER}${LOWER.toUpperCase()}`;
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function b64url(s: string): string {
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const contexts: ((name: string, secret: string) => string)[] = [
  (n, s) => `export ${n}=${s}`,
  (n, s) => `${n}="${s}"`,
  (n, s) => `Here is my key: ${s} — please don't log it.`,
  (n, s) => `{"${n.toLowerCase()}": "${s}", "region": "eu-west-1"}`,
  (n, s) => `const client = new Client({ apiKey: '${s}' });`,
  (n, s) => `$ curl -H "x-api-key: ${s}" https://api.example.com/v1/things`,
  (n, s) => `  ${n.toLowerCase()}: ${s}\n  timeout: 30`,
  (n, s) => `Error: invalid token ${s} (401 Unauthorized)`,
];

function place(r: () => number, kind: string, envName: string, secrets: string[]): Sample[] {
  return secrets.map((secret) => ({ kind, secret, text: pick(r, contexts)(envName, secret) }));
}

export function samples(seed = 1234): Sample[] {
  const r = rng(seed);
  const many = (n: number, f: () => string) => Array.from({ length: n }, f);
  const out: Sample[] = [];
  out.push(...place(r, 'anthropic-key', 'ANTHROPIC_API_KEY', many(24, () => `sk-ant-${pick(r, ['api03', 'admin01', 'oat01'])}-${randomString(r, 93, URLSAFE)}AA`)));
  out.push(
    ...place(r, 'openai-key', 'OPENAI_API_KEY', [
      ...many(10, () => `sk-proj-${randomString(r, 156, URLSAFE)}`),
      ...many(6, () => `sk-${randomString(r, 20, ALNUM)}T3BlbkFJ${randomString(r, 20, ALNUM)}`),
      ...many(4, () => `sk-svcacct-${randomString(r, 120, URLSAFE)}`),
      ...many(4, () => `sk-${randomString(r, 48, ALNUM)}`),
    ]),
  );
  out.push(...place(r, 'aws-access-key', 'AWS_ACCESS_KEY_ID', many(24, () => `${pick(r, ['AKIA', 'ASIA'])}${randomString(r, 16, B32)}`)));
  for (let i = 0; i < 22; i++) {
    const secret = randomString(r, 40, B64);
    const text = pick(r, [
      (s: string) => `aws_secret_access_key = ${s}`,
      (s: string) => `export AWS_SECRET_ACCESS_KEY=${s}`,
      (s: string) => `{"AccessKeyId": "ASIAXXXX", "SecretAccessKey": "${s}"}`,
      (s: string) => `AWS_SECRET_ACCESS_KEY: "${s}"`,
    ])(secret);
    out.push({ kind: 'aws-secret-key', secret, text });
  }
  out.push(
    ...place(r, 'github-token', 'GITHUB_TOKEN', [
      ...many(8, () => `ghp_${randomString(r, 36, ALNUM)}`),
      ...many(4, () => `gho_${randomString(r, 36, ALNUM)}`),
      ...many(4, () => `ghs_${randomString(r, 36, ALNUM)}`),
      ...many(6, () => `github_pat_${randomString(r, 22, ALNUM)}_${randomString(r, 59, ALNUM)}`),
    ]),
  );
  out.push(...place(r, 'gitlab-token', 'GITLAB_TOKEN', many(22, () => `${pick(r, ['glpat', 'glptt', 'gldt'])}-${randomString(r, 20, URLSAFE)}`)));
  out.push(
    ...place(r, 'slack-token', 'SLACK_BOT_TOKEN', [
      ...many(16, () => `${pick(r, ['xoxb', 'xoxp', 'xoxa', 'xoxs'])}-${randomString(r, 12, '0123456789')}-${randomString(r, 13, '0123456789')}-${randomString(r, 24, ALNUM)}`),
      ...many(6, () => `https://hooks.slack.com/services/T${randomString(r, 8, UPPER_NUM)}/B${randomString(r, 10, UPPER_NUM)}/${randomString(r, 24, ALNUM)}`),
    ]),
  );
  out.push(
    ...place(r, 'stripe-key', 'STRIPE_SECRET_KEY', [
      ...many(12, () => `${pick(r, ['sk', 'rk'])}_${pick(r, ['live', 'test'])}_${randomString(r, pick(r, [24, 99]), ALNUM)}`),
      ...many(8, () => `whsec_${randomString(r, 32, ALNUM)}`),
    ]),
  );
  out.push(...place(r, 'google-key', 'GOOGLE_API_KEY', many(22, () => `AIza${randomString(r, 35, URLSAFE)}`)));
  out.push(...place(r, 'npm-token', 'NPM_TOKEN', many(22, () => `npm_${randomString(r, 36, ALNUM)}`)));
  out.push(...place(r, 'huggingface-token', 'HF_TOKEN', many(22, () => `hf_${randomString(r, 34, LETTERS)}`)));
  out.push(...place(r, 'sendgrid-key', 'SENDGRID_API_KEY', many(20, () => `SG.${randomString(r, 22, URLSAFE)}.${randomString(r, 43, URLSAFE)}`)));
  out.push(...place(r, 'digitalocean-token', 'DO_TOKEN', many(20, () => `dop_v1_${randomString(r, 64, HEX)}`)));
  out.push(...place(r, 'groq-key', 'GROQ_API_KEY', many(20, () => `gsk_${randomString(r, 52, ALNUM)}`)));
  for (let i = 0; i < 22; i++) {
    const header = b64url(JSON.stringify({ alg: pick(r, ['HS256', 'RS256']), typ: 'JWT' }));
    const payload = b64url(JSON.stringify({ sub: randomString(r, 12, ALNUM), iat: 1700000000 + i, exp: 1800000000, role: pick(r, ['admin', 'user']) }));
    const jwt = `${header}.${payload}.${randomString(r, 43, URLSAFE)}`;
    const text = pick(r, [(s: string) => `Authorization: Bearer ${s}`, (s: string) => `token=${s}`, (s: string) => `The session cookie was ${s}.`])(jwt);
    out.push({ kind: 'jwt', secret: jwt, text });
  }
  for (let i = 0; i < 22; i++) {
    const label = pick(r, ['RSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'EC PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY']);
    const body = many(8 + Math.floor(r() * 10), () => randomString(r, 64, B64)).join('\n');
    const block = `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
    out.push({ kind: 'private-key', secret: body.split('\n')[2]!, text: `cat ~/.ssh/id_test\n${block}\n` });
  }
  for (let i = 0; i < 24; i++) {
    const pw = randomString(r, 8 + Math.floor(r() * 16), `${ALNUM}!*-_~`);
    const user = pick(r, ['app', 'admin', 'deploy', 'postgres', 'ci-bot']);
    const url = pick(r, [
      `postgres://${user}:${pw}@db.internal:5432/app`,
      `mongodb+srv://${user}:${pw}@cluster0.abcd.mongodb.net/test`,
      `redis://${user}:${pw}@cache:6379/0`,
      `https://${user}:${pw}@git.example.com/org/repo.git`,
      `amqp://${user}:${pw}@rabbit:5672/vhost`,
    ]);
    out.push({ kind: 'url-password', secret: pw, text: pick(r, [`DATABASE_URL=${url}`, `connecting to ${url} ...`, `"url": "${url}"`]) });
  }
  for (let i = 0; i < 24; i++) {
    const name = pick(r, ['DB_PASSWORD', 'JWT_SECRET', 'SESSION_SECRET', 'MYAPP_API_KEY', 'SMTP_PASSWORD', 'ENCRYPTION_KEY_SECRET', 'REDIS_PASSWORD', 'CLIENT_SECRET', 'SENTRY_AUTH_TOKEN', 'WEBHOOK_SECRET']);
    const value = randomString(r, 12 + Math.floor(r() * 30), `${ALNUM}!@%^*-_`);
    out.push({ kind: 'env-assignment', secret: value, text: pick(r, [`${name}=${value}`, `export ${name}='${value}'`, `  ${name}="${value}"`]) });
  }
  for (let i = 0; i < 22; i++) {
    const key = pick(r, ['password', 'client_secret', 'apiKey', 'api_key', 'secret', 'access_token', 'refresh_token', 'auth_token']);
    const value = randomString(r, 16 + Math.floor(r() * 24), `${ALNUM}-_.`);
    out.push({ kind: 'config-secret', secret: value, text: pick(r, [`{"${key}": "${value}"}`, `${key}: "${value}"`, `  "${key}" => '${value}',`]) });
  }
  for (let i = 0; i < 22; i++) {
    const token = randomString(r, 32 + Math.floor(r() * 32), `${ALNUM}-_`);
    out.push({ kind: 'bearer-token', secret: token, text: pick(r, [`-H "Authorization: Bearer ${token}"`, `headers: { Authorization: 'Bearer ${token}' }`, `Authorization: token ${token}`]) });
  }
  return out;
}
