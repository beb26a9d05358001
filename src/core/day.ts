// Days as the user lives them: one rule for every `yyyy-mm-dd` Engram writes or compares (review dates, due notes,
// archive dates, extraction dates): the user's local calendar day, never UTC's.
import { isoWithOffset } from './note/write-beat';

/** The local calendar date of an instant, `yyyy-mm-dd`. */
export function isoDate(ms: number): string {
  return isoWithOffset(ms).slice(0, 10);
}

/** A calendar date `days` later (or earlier), by the calendar: no clock time, so no time zone or DST shift. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.slice(0, 10).split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}
