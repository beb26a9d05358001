// Moments in a session that are most likely worth remembering, found without an LLM: explicit
// markers, user corrections, errors followed by a fix, and decisions. The `rules` backend files
// markers directly; the LLM backends get them as hints.
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

// `#cor …`, `#decision …` at the start of a line or after whitespace; `remember: …` at a line start.
const MARKER_RE = /(?:^|\s)#(cor|correction|decision|insight|problem|failed|reference|remember)\b[:\s-]*([^\n]*)|^[ \t>*-]*(remember|note to self|for the record)\s*:\s*([^\n]+)/gim;
const CORRECTION_START_RE = /^(?:no|nope|nah|wrong|not quite|stop|wait)\b[\s,.!:;-]|^actually\b|^(?:that'?s|this is|you'?re) (?:wrong|not (?:right|correct|what i))|^(?:don'?t|do not|never) (?:use|do|add|call|put|change)\b|^(?:use|try) \S+ instead\b|^i said\b|^instead\b/i;
const CORRECTION_ANY_RE = /\b(?:use \S+ instead(?: of \S+)?|instead of \S+,? use|should (?:be|use) \S+ not\b|that'?s not (?:right|correct|how)|you (?:forgot|missed|broke))\b/i;
const DECISION_USER_RE = /\b(?:let'?s (?:go with|use|stick with|switch to|keep)|we(?:'ll| will| should| are going to) (?:go with|use|stick with|switch to)|i (?:decided|prefer|want (?:to use|us to use))|decided (?:to|on|that)|the decision is|we(?:'re| are) going with|from now on)\b/i;
const DECISION_ASSISTANT_RE = /\b(?:(?:we|i) decided (?:to|on)|the decision (?:is|was)|going forward,? (?:we|i) will|chose \S+ (?:over|instead of))\b/i;

const MAX_TEXT = 400;

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
    // A correction answers something the agent just said or did.
    const prevAssistant = i > 0 && turns[i - 1].role === 'assistant';
    const text = t.text;
    MARKER_RE.lastIndex = 0;
    let markerFound = false;
    for (let m = MARKER_RE.exec(text); m; m = MARKER_RE.exec(text)) {
      const word = (m[1] ?? m[3] ?? '').toLowerCase();
      const body = (m[2] ?? m[4] ?? '').trim();
      if (!body) continue;
      markerFound = true;
      out.push({ kind: 'marker', turn: t.index, role: t.role, marker: word === 'correction' ? 'cor' : word, text: body.slice(0, MAX_TEXT) });
    }
    if (t.role === 'user' && !markerFound && text) {
      const trimmed = text.trimStart();
      if (prevAssistant && CORRECTION_START_RE.test(trimmed)) out.push({ kind: 'correction', turn: t.index, role: t.role, text: firstSentence(trimmed) });
      else {
        const c = CORRECTION_ANY_RE.exec(text);
        if (prevAssistant && c) out.push({ kind: 'correction', turn: t.index, role: t.role, text: sentenceAround(text, c.index) });
        else {
          const d = DECISION_USER_RE.exec(text);
          // A question is not a decision ("should we use X?").
          if (d && !sentenceAround(text, d.index).endsWith('?')) out.push({ kind: 'decision', turn: t.index, role: t.role, text: sentenceAround(text, d.index) });
        }
      }
    } else if (t.role === 'assistant' && !markerFound && text) {
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
