// A damaged ledger (not JSON, or no version: a torn write by another tool, a disk error) is set aside as
// `ledger.json.damaged-<time>` and a new one starts, by the host itself: at its start, and when a capture job fails
// on it. Nothing is lost that matters: notes already written stay, and dedup (engram_id, the vault's own notes) skips
// beats extracted before; the set-aside file is kept for a person to look at.
import fs from 'node:fs';
import type { VaultState } from './paths.js';

/** Whether the ledger file exists and cannot be read as a ledger of any version. */
export function ledgerDamaged(file: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  try {
    const raw = JSON.parse(text) as unknown;
    return raw === null || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as { version?: unknown }).version !== 'number';
  } catch {
    return true;
  }
}

/** Moves a damaged ledger aside; returns where it went, or undefined when it was not damaged (or is gone). */
export function setAsideDamagedLedger(state: Pick<VaultState, 'ledger'>, now = new Date()): string | undefined {
  if (!ledgerDamaged(state.ledger)) return undefined;
  const to = `${state.ledger}.damaged-${now.toISOString().replace(/[:.]/g, '-')}`;
  try {
    fs.renameSync(state.ledger, to);
  } catch {
    return undefined;
  }
  return to;
}
