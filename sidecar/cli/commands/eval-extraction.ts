// `engram eval extraction`: runs an extractor (`rules`, or the configured LLM backend) over sessions a person
// annotated, through the real pipeline into a throwaway in-memory vault, and scores what it filed: precision and
// recall per type, recall of what was stated outright, notes holding the agent's words, projects right. Each run is
// printed beside the previous one of the same backend and set (kept in the state folder).
import fs from 'node:fs';
import path from 'node:path';
import { EngramError, errorMessage } from '../../../src/core/errors.js';
import { BACKENDS, type BackendName } from '../../../src/core/config.js';
import { extractSession } from '../../../src/core/extract/extract.js';
import { MemoryStateStore } from '../../../src/core/extract/state-store.js';
import { citedTurns, formatExtractionScore, parseExtractionSet, scoreExtraction, type ExtractionScore, type ExtractionSet, type FiledNote, type SessionRun } from '../../../src/core/extract/eval-extraction.js';
import type { LlmBackend } from '../../../src/core/extract/backends/types.js';
import { parseNote } from '../../../src/core/note/frontmatter.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { engramHome } from '../../../src/core/state.js';
import type { Session } from '../../../src/core/transcript/types.js';
import { atomicWriteFileSync } from '../../hosting/atomic-write.js';
import { createBackend } from '../../hosting/backends.js';
import { setSessionProject } from '../../hosting/resolve.js';
import { readTranscriptFile } from '../../hosting/transcript-files.js';
import type { CommandContext } from '../types.js';

/** True when a note's words are the agent's: it cites only assistant turns, or its statement sits in an assistant turn and no user turn. */
function agentWords(session: Session, turns: number[], body: string): boolean {
  const cited = session.turns.filter((t) => turns.includes(t.index));
  if (cited.length && cited.every((t) => t.role === 'assistant')) return true;
  const said = body.split('\n\n')[0].replace(/\s+/g, ' ').trim().slice(0, 60);
  if (said.length < 20) return false;
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  return !cited.some((t) => t.role === 'user' && flat(t.text).includes(said)) && session.turns.some((t) => t.role === 'assistant' && flat(t.text).includes(said));
}

/** Runs `backend` over every session of the set found under `dir`; sessions of the set that are missing are named in `missing`. */
export async function runExtractionEval(set: ExtractionSet, dir: string, backend: LlmBackend, homeDir: string): Promise<{ runs: SessionRun[]; missing: string[] }> {
  const runs: SessionRun[] = [];
  const missing: string[] = [];
  const read: { file: string; session: Session }[] = [];
  for (const s of set.sessions) {
    const file = path.join(dir, s.file);
    if (!fs.existsSync(file)) {
      missing.push(s.file);
      continue;
    }
    const { sessions } = await readTranscriptFile(file, { source: file });
    read.push({ file: s.file, session: sessions[0] });
  }
  // The projects seen in this set stand for the ones a user's other sessions name (setup reads them all).
  const known = [...new Set(read.map((r) => r.session.meta.cwd).filter((c): c is string => !!c))];
  for (const { file, session } of read) {
    session.meta.project = undefined;
    session.meta.projectGuess = undefined;
    setSessionProject(session.meta, homeDir, known);
    const vault = new MemoryVault();
    await extractSession({ ports: { vault, clock: { now: () => Date.UTC(2026, 0, 1) } }, state: new MemoryStateStore(), vaultDir: 'vaults/eval', backend, session });
    const notes: FiledNote[] = [];
    for (const f of await vault.list()) {
      const text = (await vault.read(f.path)).text;
      const note = parseNote(text);
      const turns = citedTurns(text);
      notes.push({ type: String(note.data?.type ?? ''), title: typeof note.data?.title === 'string' ? note.data.title : path.basename(f.path, '.md'), turns, agentText: agentWords(session, turns, note.body.trim()) });
    }
    runs.push({ file, notes, project: session.meta.project, projectGuess: !!session.meta.projectGuess });
  }
  return { runs, missing };
}

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new EngramError('not-found', `cannot read the annotated set ${file}: ${errorMessage(e)}`);
  }
}

export async function evalExtraction(ctx: CommandContext): Promise<number> {
  const setOpt = ctx.options.set as string | undefined;
  const dirOpt = ctx.options.transcripts as string | undefined;
  if (!setOpt || !dirOpt) throw new EngramError('usage', '--set and --transcripts are required', 'example: engram eval extraction --set bench/extraction-sets/corpus-transcripts.json --transcripts ../shared/corpus/transcripts');
  const setFile = path.resolve(ctx.cwd, setOpt);
  const dir = path.resolve(ctx.cwd, dirOpt);
  if (!fs.existsSync(dir)) throw new EngramError('not-found', `no transcripts folder at ${dir}`);
  const set = parseExtractionSet(read(setFile), setFile);
  const config = ctx.config();
  const name = (ctx.options.backend as string | undefined) ?? 'rules';
  if (!(BACKENDS as readonly string[]).includes(name)) throw new EngramError('usage', `unknown backend "${name}"`, `choose one of ${BACKENDS.join(', ')}`);
  const backend = createBackend(name as BackendName, config, { env: ctx.env, timeoutMs: config.get('extract.timeout_ms') });
  const { runs, missing } = await runExtractionEval(set, dir, backend, ctx.facts.homeDir);
  if (runs.length === 0) throw new EngramError('not-found', `none of the ${set.sessions.length} annotated sessions is under ${dir}`);
  const score = scoreExtraction(set, runs);
  // The previous run of this backend on this set, then this one in its place.
  const lastFile = path.join(engramHome(ctx.facts), 'eval', `extraction-${name}-${path.basename(setFile, '.json')}.json`);
  let before: ExtractionScore | null = null;
  try {
    before = (JSON.parse(fs.readFileSync(lastFile, 'utf8')) as { score: ExtractionScore }).score;
  } catch {
    before = null;
  }
  fs.mkdirSync(path.dirname(lastFile), { recursive: true });
  atomicWriteFileSync(lastFile, `${JSON.stringify({ at: new Date().toISOString(), backend: name, model: backend.model, set: setFile, score }, null, 2)}\n`);
  if (ctx.global.json) {
    ctx.stdout(JSON.stringify({ backend: name, model: backend.model, set: setFile, missing, score, previous: before }, null, 2));
    return 0;
  }
  for (const line of formatExtractionScore(`${name} (${backend.model})`, score, before)) ctx.stdout(line);
  if (!before) ctx.stdout('  (first run: the next one is printed beside this)');
  if (missing.length) ctx.stdout(`  ${missing.length} annotated session${missing.length === 1 ? '' : 's'} not found under ${dir}: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`);
  if (ctx.options.verbose) {
    for (const w of score.wrong) ctx.stdout(`  wrong  ${w.file} turn ${w.turn.join(',')} [${w.type}] ${w.title} (${w.why})`);
    for (const m of score.missed) ctx.stdout(`  missed ${m.file} turn ${m.turn} [${m.type}, ${m.stated}] ${m.quote}`);
  }
  return 0;
}
