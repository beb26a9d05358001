// The status bar item: who hosts this vault, index progress, and notes due for review.
import { count } from '../core/plural';
export type HostState =
  | { kind: 'starting' }
  | { kind: 'here'; indexing?: { phase: string; done: number; total: number }; notes: number; due: number }
  | { kind: 'elsewhere'; by: 'daemon' | 'plugin'; pid?: number }
  | { kind: 'none'; why: string };

/** One short line for the status bar, and a longer one for its tooltip and the settings tab. */
export function describeHost(s: HostState): { text: string; title: string } {
  switch (s.kind) {
    case 'starting':
      return { text: 'Engram: starting', title: 'Engram is taking over this vault.' };
    case 'here': {
      if (s.indexing && s.indexing.done < s.indexing.total) {
        const pct = Math.floor((100 * s.indexing.done) / Math.max(1, s.indexing.total));
        return { text: `Engram: indexing ${pct}%`, title: `Engram hosts this vault here. Indexing: ${s.indexing.done} of ${count(s.indexing.total, 'note')} (${s.indexing.phase}).` };
      }
      const due = s.due ? ` · ${s.due} to review` : '';
      return { text: `Engram${due}`, title: `Engram hosts this vault here: ${count(s.notes, 'note')} indexed${s.due ? `, ${count(s.due, 'working-memory note')} due for review` : ''}. Hooks and MCP talk to Obsidian.` };
    }
    case 'elsewhere':
      return { text: `Engram: ${s.by === 'daemon' ? 'daemon' : 'elsewhere'}`, title: `Another process hosts this vault (${s.by}${s.pid ? `, pid ${s.pid}` : ''}); Engram will take over when it can.` };
    case 'none':
      return { text: 'Engram: off', title: `Engram is not hosting this vault: ${s.why}` };
  }
}
