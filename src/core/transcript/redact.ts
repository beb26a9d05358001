// Secret redaction: applied to every turn's text (and a session's title) before it leaves the machine
// or reaches the vault. Two detectors: the secretlint recommended preset (a maintained project's
// provider rules) and Engram's own rules (secret-rules.ts) for what it lacks. This is the one entry
// point: every reader calls redactTexts, and only kind names are ever counted, never the values.
// Personal data goes the same way: e-mail addresses are redacted (unless the user keeps them: config
// `extract.keep_emails`), and home folders are written relative to the home (`/Users/ann/src` → `~/src`).
import { findEngramSecrets, type SecretFinding } from './secret-rules.js';
import { findSecretlintSecrets, type DetectorFinding } from './secretlint.js';

export { looksRandom, looksLikePassword, type SecretFinding } from './secret-rules.js';

export interface RedactResult {
  text: string;
  /** Secrets replaced, by kind. */
  counts: Record<string, number>;
  /** Personal data rewritten (`email`, `home-path`): not secrets, so counted apart. */
  personal?: Record<string, number>;
}

export interface RedactOptions {
  /** Leave e-mail addresses as written (default: redacted). */
  keepEmails?: boolean;
}

// An address a person could be reached at; not `git@github.com:` remotes nor `user@host` in a shell prompt without a dot.
const EMAIL_RE = /(?<![\w.+:/%-])(?!git@)[A-Za-z0-9][\w.+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w@-])/g;
// A home folder: /Users/<name>, /home/<name>, C:\Users\<name> (not the shared ones).
const HOME_RE = /(?<![\w~.-])(?:\/Users\/|\/home\/|[A-Za-z]:\\Users\\)(?!Shared\b|Public\b|Default\b)[\w.-]+(?=[\\/]|(?![\w.-]))/g;

/** E-mail addresses (unless kept) and home folders, after the secrets: `[REDACTED:email]` and `~`. */
function personalData(r: RedactResult, opts: RedactOptions): RedactResult {
  const personal: Record<string, number> = {};
  let text = r.text;
  if (!opts.keepEmails) {
    text = text.replace(EMAIL_RE, () => {
      personal.email = (personal.email ?? 0) + 1;
      return '[REDACTED:email]';
    });
  }
  const home = homeRelative(text);
  if (home.count) personal['home-path'] = home.count;
  return Object.keys(personal).length ? { ...r, text: home.text, personal } : r;
}

/** Home folders written relative to the home: `/Users/ann/src/app` → `~/src/app`. */
export function homeRelative(text: string): { text: string; count: number } {
  let count = 0;
  const out = text.replace(HOME_RE, () => {
    count++;
    return '~';
  });
  return { text: out, count };
}

/** Redacts a batch of texts (one detector call for the batch); results are in the same order. */
export async function redactTexts(texts: string[], opts: RedactOptions = {}): Promise<RedactResult[]> {
  let detected: DetectorFinding[][];
  let detectorFailed = false;
  try {
    detected = await findSecretlintSecrets(texts);
  } catch {
    // Engram's rules cover the preset's providers too: go on with them, and say so in the counts.
    detected = texts.map(() => []);
    detectorFailed = true;
  }
  return texts.map((text, i) => {
    const r = applyFindings(text, [...findEngramSecrets(text), ...detected[i]]);
    if (detectorFailed) r.counts['detector-failed'] = 1;
    return personalData(r, opts);
  });
}

export async function redactText(text: string, opts: RedactOptions = {}): Promise<RedactResult> {
  return (await redactTexts([text], opts))[0];
}

/**
 * Replaces each secret span with `[REDACTED:kind]`. Overlapping spans merge into one, named by the
 * first finding (Engram's rules come first: their names are the more specific). A whole-URL finding
 * of the detector that holds one of Engram's finer findings gives way to it, so `postgres://app:…@db`
 * keeps its user and host.
 */
function applyFindings(text: string, findings: DetectorFinding[]): RedactResult {
  const counts: Record<string, number> = {};
  if (!findings.length) return { text, counts };
  const fine = findings.filter((f) => !f.coarse);
  const kept = findings.filter((f) => !f.coarse || !fine.some((g) => g.start >= f.start && g.end <= f.end));
  const order = new Map<SecretFinding, number>(kept.map((f, i) => [f, i]));
  kept.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: { start: number; end: number; kind: string; rank: number }[] = [];
  for (const f of kept) {
    const last = merged[merged.length - 1];
    const rank = order.get(f)!;
    if (last && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      if (rank < last.rank) {
        last.rank = rank;
        last.kind = f.kind;
      }
    } else merged.push({ start: f.start, end: f.end, kind: f.kind, rank });
  }
  let out = '';
  let from = 0;
  for (const m of merged) {
    out += `${text.slice(from, m.start)}[REDACTED:${m.kind}]`;
    counts[m.kind] = (counts[m.kind] ?? 0) + 1;
    from = m.end;
  }
  return { text: out + text.slice(from), counts };
}

export function addCounts(into: Record<string, number>, add: Record<string, number>): void {
  for (const [k, v] of Object.entries(add)) into[k] = (into[k] ?? 0) + v;
}
