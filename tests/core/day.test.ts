// One date rule for Engram: the user's local calendar day (a working-memory note falls due on the user's day, not UTC's).
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, isoDate } from '../../src/core/day';

const tz = process.env.TZ;
afterEach(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe('isoDate and addDays', () => {
  it('isoDate is the local day, east and west of UTC, near midnight', () => {
    const at = Date.parse('2026-03-10T20:30:00Z');
    process.env.TZ = 'Pacific/Auckland';
    expect(isoDate(at)).toBe('2026-03-11');
    process.env.TZ = 'America/Los_Angeles';
    expect(isoDate(Date.parse('2026-03-11T05:30:00Z'))).toBe('2026-03-10');
    process.env.TZ = 'UTC';
    expect(isoDate(at)).toBe('2026-03-10');
  });

  it('addDays counts calendar days across month ends, leap days and a DST change', () => {
    process.env.TZ = 'Europe/Berlin';
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
  });
});
