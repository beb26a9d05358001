// The one reader of the spans and dates people type for `since`, `--since`, `--due-within` and the like: `12h`, `7d`,
// `2w`, `3m` (months), `1y`, a date (`2026-03-01`), or a phrase the query reader knows ("last week", "yesterday").
import { EngramError } from './errors.js';
import { extractTimePhrase } from './index/time-phrases.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNIT_MS: Record<string, number> = { h: HOUR, d: DAY, w: 7 * DAY, m: 30 * DAY, y: 365 * DAY };

export const DURATION_FORMS = '12h, 7d, 2w, 3m, 1y, a date such as 2026-03-01, or "last week"';

/** A span such as `12h`, `7d`, `2w`, `3m`, `1y` in milliseconds, or undefined when the text is not one. */
export function spanMs(text: string): number | undefined {
  const m = /^(\d+)\s*([hdwmy])$/i.exec(text.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2].toLowerCase()] : undefined;
}

/**
 * The start of the period `text` names, in epoch ms: a span back from `now`, a date, or a time phrase. Throws a usage
 * error naming `what` (the option or parameter) and the accepted forms otherwise.
 */
export function parseSince(text: string, now: number, what = 'since'): number {
  const t = text.trim();
  const span = spanMs(t);
  if (span !== undefined) return now - span;
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const date = Date.parse(t);
    if (!Number.isNaN(date)) return date;
  }
  const phrase = extractTimePhrase(t, now);
  if (phrase.range?.since !== undefined && phrase.query === '') return phrase.range.since;
  throw new EngramError('usage', `${what}: "${text}" is not a span or a date`, `use ${DURATION_FORMS}`);
}

/** A forward horizon in whole days (`7d`, `2w`, `3m`, or a bare number of days), as `--due-within` takes it. */
export function parseDays(text: string, what = 'due-within'): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const span = spanMs(t);
  if (span !== undefined && span >= DAY) return Math.round(span / DAY);
  throw new EngramError('usage', `${what} takes a number of days such as 7d or 2w, got "${text}"`);
}
