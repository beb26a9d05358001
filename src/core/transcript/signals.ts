// Moments in a session that are most likely worth remembering, found without an LLM: explicit
// markers, user corrections, errors followed by a fix, and decisions. Markers, corrections and the user's decisions
// come from the statement finder the `rules` backend files notes from (statements.ts); the LLM backends get them
// as hints.
import { turnStatements } from './statements.js';
import type { Session, Turn } from './types.js';

export type SignalKind = 'marker' | 'correction' | 'error-fix' | 'decision';

export interface SignalMoment {
  kind: SignalKind;
  /** Index of the turn (Turn.index) where the moment is. */
  turn: number;
  role: Turn['role'];
  /** The sentence or marker text (already redacted, like the turn). */
  text: string;
  /** For markers: the marker word as typed (`cor`, `decision`, `remember`, …). */
  marker?: string;
  /** For error-fix: the turn that fixed it. */
  fixTurn?: number;
}

const DECISION_ASSISTANT_RE = /\b(?:(?:we|i) decided (?:to|on)|the decision (?:is|was)|going forward,? (?:we|i) will|chose \S+ (?:over|instead of))\b/i;

const MAX_TEXT = 400;

function clip(text: string): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

function firstSentence(text: string, at = 0): string {
  const rest = text.slice(at);
  const end = rest.search(/(?<=[.!?])\s|\n/);
  const s = (end > 0 ? rest.slice(0, end) : rest).trim();
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

function sentenceAround(text: string, index: number): string {
  let start = text.lastIndexOf('\n', index - 1) + 1;
  for (let k = index - 2; k >= start; k--) {
    const c = text[k];
    if ((c === '.' || c === '!' || c === '?') && /\s/.test(text[k + 1] ?? '')) {
      start = k + 1;
      break;
    }
  }
  return firstSentence(text, start);
}

export function findSignals(session: Session): SignalMoment[] {
  const out: SignalMoment[] = [];
  const turns = session.turns;
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    const prevAssistant = i > 0 && turns[i - 1].role === 'assistant';
    const text = t.text;
    const { statements } = turnStatements(t);
    let markerFound = false;
    for (const st of statements) {
      if (st.marker) {
        markerFound = true;
        out.push({ kind: 'marker', turn: t.index, role: t.role, marker: st.marker, text: clip(st.text) });
      } else if (st.kind === 'correction') {
        // A correction answers something the agent just said or did.
        if (prevAssistant) out.push({ kind: 'correction', turn: t.index, role: t.role, text: clip(st.text) });
      } else if (st.kind === 'decision') out.push({ kind: 'decision', turn: t.index, role: t.role, text: clip(st.text) });
    }
    if (t.role === 'assistant' && !markerFound && text) {
      const d = DECISION_ASSISTANT_RE.exec(text);
      if (d) out.push({ kind: 'decision', turn: t.index, role: t.role, text: sentenceAround(text, d.index) });
    }
    if (t.role === 'assistant' && t.errors.length > 0) {
      // The fix: a later assistant turn in the same stretch (before the user speaks) that acts without error.
      for (let j = i + 1; j < turns.length && j <= i + 8; j++) {
        const f = turns[j];
        if (f.role === 'user') break;
        if (f.sidechain === t.sidechain && f.errors.length === 0 && f.tools.length > 0) {
          out.push({ kind: 'error-fix', turn: t.index, role: t.role, text: t.errors[0].slice(0, MAX_TEXT), fixTurn: f.index });
          break;
        }
      }
    }
  }
  return out;
}
