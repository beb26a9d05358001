// `engram parse <file>`: what Engram reads from a transcript, before any LLM sees it: metadata,
// turns by role, signal moments, the windows that would be sent, redactions, and damage.
import path from 'node:path';
import { EngramError } from '../../../src/core/errors.js';
import { buildWindows, findSignals, renderTurn, type Session, type SignalMoment, type TranscriptWindow } from '../../../src/core/transcript/index.js';
// The windows shown by default are exactly the ones extraction sends: its budget, its (zero) overlap.
import { DEFAULT_WINDOW, EXTRACT_OVERLAP_TURNS } from '../../../src/core/extract/window.js';
import { readTranscriptFile } from '../../hosting/transcript-files.js';
import type { CommandDefinition } from '../types.js';

type ReportWindow = Omit<TranscriptWindow, 'items'> & { items: { turn: number; part?: { index: number; count: number } }[] };

interface SessionReport {
  meta: Session['meta'];
  turns: { user: number; assistant: number; sidechain: number };
  stats: Session['stats'];
  signals: SignalMoment[];
  /** The budget and overlap the windows were cut with (extraction's unless --budget/--overlap said otherwise). */
  window: { budgetTokens: number; overlapTurns: number };
  windows: ReportWindow[];
  redactions: { total: number; byKind: Record<string, number> };
  damage: { tornLines: number; recoveredRecords: number; lostFragments: number; oversizedLines: number; malformedRecords: number; at: NonNullable<Session['stats']>['damage'] };
}

function report(s: Session, budget: number, overlap: number): SessionReport {
  const st = s.stats;
  const windows = buildWindows(s.turns, { budgetTokens: budget, overlapTurns: overlap }).map(({ items, ...w }) => ({
    ...w,
    items: items.map((i) => (i.part ? { turn: i.turn, part: i.part } : { turn: i.turn })),
  }));
  const byKind = st?.redactions ?? {};
  return {
    meta: s.meta,
    turns: { user: st?.turnsByRole.user ?? 0, assistant: st?.turnsByRole.assistant ?? 0, sidechain: st?.sidechainTurns ?? 0 },
    stats: st,
    signals: findSignals(s),
    window: { budgetTokens: budget, overlapTurns: overlap },
    windows,
    redactions: { total: Object.values(byKind).reduce((a, b) => a + b, 0), byKind },
    damage: {
      tornLines: st?.tornLines ?? 0,
      recoveredRecords: st?.recoveredRecords ?? 0,
      lostFragments: st?.lostFragments ?? 0,
      oversizedLines: st?.oversizedLines ?? 0,
      malformedRecords: st?.malformedRecords ?? 0,
      at: st?.damage ?? [],
    },
  };
}

function kinds(counts: Record<string, number>): string {
  const e = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return e.length ? e.map(([k, v]) => `${k} ${v}`).join(', ') : 'none';
}

function one(text: string, max = 110): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function printSession(out: (t: string) => void, s: Session, r: SessionReport, showTurns: boolean, budget: number, overlap: number): void {
  const m = s.meta;
  const st = s.stats!;
  out(`session   ${m.sessionId}  (${m.agent}${m.subagent ? `, ${m.subagent === 'compact' ? 'compaction' : 'task'} subagent of ${m.parentSessionId ?? '?'}` : ''})`);
  if (m.title) out(`title     ${one(m.title)}`);
  const where = [m.project && `project ${m.project}`, m.gitBranch && `branch ${m.gitBranch}`, m.version && `version ${m.version}`].filter(Boolean).join('  ');
  if (where) out(`          ${where}`);
  if (m.cwd) out(`cwd       ${m.cwd}`);
  if (m.startedAt) out(`time      ${m.startedAt} → ${m.endedAt ?? '?'}`);
  if (m.engramInternal) out(`note      this is one of Engram's own extraction calls: it is never queued`);
  out(`read      ${st.records} records in ${st.lines} lines (${st.bytes} bytes)`);
  out(`types     ${kinds(st.recordTypes)}`);
  out(`turns     user ${r.turns.user}, assistant ${r.turns.assistant}${r.turns.sidechain ? ` (sidechain ${r.turns.sidechain})` : ''}${st.queuedPrompts ? `; ${st.queuedPrompts} prompts queued mid-turn` : ''}`);
  out(`compact   compactions ${st.compactions}, compact summaries ${st.compactSummaries}, legacy summaries ${st.summaries}, microcompactions ${st.microcompactions}`);
  out(`dropped   thinking ${st.thinkingBlocks}, tool results ${st.toolResults} (errors ${st.toolErrors}), meta ${st.metaRecords}, system reminders ${st.systemReminders}, Engram fences ${st.engramFences}, duplicates ${st.duplicateRecords}`);
  out(`redacted  ${r.redactions.total ? `${r.redactions.total} (${kinds(r.redactions.byKind)})` : 'nothing'}`);
  const d = r.damage;
  out(`damage    torn lines ${d.tornLines} (records recovered ${d.recoveredRecords}, fragments lost ${d.lostFragments}), oversized lines ${d.oversizedLines}, malformed ${d.malformedRecords}, blank ${st.blankLines}`);
  for (const x of d.at) out(`          at byte ${x.offset}: ${x.kind}${x.kind === 'torn' ? `, ${x.recovered} recovered` : ''}`);
  out(`signals   ${r.signals.length}`);
  for (const sg of r.signals) out(`  turn ${sg.turn} ${sg.kind}${sg.marker ? ` #${sg.marker}` : ''}${sg.fixTurn !== undefined ? ` (fixed in turn ${sg.fixTurn})` : ''}: ${one(sg.text, 90)}`);
  out(`windows   ${r.windows.length} (budget ${budget} tokens, overlap ${overlap} turns, newest first)`);
  for (const w of r.windows) {
    const p = w.items[0]?.part;
    const part = p ? `, part ${p.index}/${p.count}` : '';
    out(`  ${w.index + 1}. turns ${w.firstTurn}–${w.lastTurn}, ~${w.tokens} tokens${w.overlap ? `, ${w.overlap} overlap` : ''}${part}  ${w.firstUuid} → ${w.lastUuid}`);
  }
  if (showTurns) {
    out('turns:');
    for (const t of s.turns) out(`  ${t.index}. ${one(renderTurn(t), 160)}`);
  }
}

export const command: CommandDefinition = {
  usage: 'parse <file> [--json] [--budget <tokens>] [--overlap <turns>] [--turns]',
  description:
    'Read a transcript (Claude Code session, Codex rollout, Claude.ai or ChatGPT export) the way extraction will, and print its metadata, turns by role, signal moments, the windows that would be sent, redactions made, and torn or skipped lines. Nothing is sent anywhere.',
  options: {
    budget: { type: 'number', valueName: '<tokens>', description: `Token budget per window (default ${DEFAULT_WINDOW.budgetTokens}, what extraction sends)` },
    overlap: { type: 'number', valueName: '<turns>', description: `Turns repeated between windows (default ${EXTRACT_OVERLAP_TURNS}, what extraction sends)` },
    turns: { type: 'boolean', description: 'Also print every turn as extraction sees it (one line each)' },
  },
  details: 'Examples:\n  engram parse ~/.claude/projects/-home-me-app/1234.jsonl\n  engram parse ~/Downloads/chatgpt-export/conversations.json --json',
  async run(ctx) {
    const file = ctx.args[0];
    if (!file) throw new EngramError('usage', 'parse needs a transcript file', 'e.g. `engram parse ~/.claude/projects/<project>/<session>.jsonl`');
    if (ctx.args.length > 1) throw new EngramError('usage', `parse takes one file, got ${ctx.args.length}`);
    const budget = ctx.options.budget === undefined ? DEFAULT_WINDOW.budgetTokens : Number(ctx.options.budget);
    const overlap = ctx.options.overlap === undefined ? EXTRACT_OVERLAP_TURNS : Number(ctx.options.overlap);
    if (!Number.isFinite(budget) || budget < 64) throw new EngramError('usage', `--budget must be a number of tokens ≥ 64, got ${String(ctx.options.budget)}`);
    if (!Number.isInteger(overlap) || overlap < 0) throw new EngramError('usage', `--overlap must be a whole number ≥ 0, got ${String(ctx.options.overlap)}`);
    const abs = path.resolve(ctx.cwd, file);
    const read = await readTranscriptFile(abs);
    const reports = read.sessions.map((s) => report(s, budget, overlap));
    if (ctx.global.json) {
      const body =
        read.format === 'chat-export'
          ? { file: abs, format: read.format, exportSummary: read.exportSummary, sessions: reports }
          : { file: abs, format: read.format, ...reports[0] };
      ctx.stdout(JSON.stringify(body, null, 2));
      return 0;
    }
    ctx.stdout(`file      ${abs}\nformat    ${read.format}`);
    if (read.exportSummary) {
      const e = read.exportSummary;
      ctx.stdout(`export    ${e.conversations} conversations${e.skipped ? `, ${e.skipped} elements skipped` : ''}${e.oversized ? `, ${e.oversized} too large` : ''}`);
    }
    read.sessions.forEach((s, i) => {
      ctx.stdout('');
      printSession(ctx.stdout, s, reports[i]!, Boolean(ctx.options.turns), budget, overlap);
    });
    return 0;
  },
};
