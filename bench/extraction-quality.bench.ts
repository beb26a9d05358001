// The `rules` extractor scored against sessions annotated by reading them (bench/extraction-sets/), beside a naive
// baseline in the same run: "every sentence a user typed with a marker word is a note". Also the project each
// session lands in, beside the old rule "the folder's last name". Offline and deterministic; the same scorer as
// `engram eval extraction`.
import fs from 'node:fs';
import path from 'node:path';
import { register } from 'node:module';
import { fileURLToPath } from 'node:url';

// The extraction pipeline imports its prompt files as text.
register('./md-text-loader.mjs', import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const shared = path.resolve(process.env.ENGRAM_SHARED_DIR ?? path.join(root, '..', 'shared'));
const sets = path.join(root, 'bench', 'extraction-sets');

// The naive baseline's marker words: what a keyword search for "rules the user stated" would look for.
const MARKER_WORDS = /\b(?:don'?t|do not|never|always|must|should|shouldn'?t|let'?s|instead|remember|decided|important|not acceptable|keep in mind|from now on)\b/i;

/** Project resolution over every session in the folder (one per session id, its largest file), beside the folder's name. */
async function everySession(dir: string, project: string): Promise<void> {
  const { readTranscriptFile } = await import('../sidecar/hosting/transcript-files.js');
  const { setSessionProject } = await import('../sidecar/hosting/resolve.js');
  const byId = new Map<string, { size: number; meta: import('../src/core/transcript/types.js').SessionMeta }>();
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    const size = fs.statSync(path.join(dir, f)).size;
    const meta = (await readTranscriptFile(path.join(dir, f)).catch(() => null))?.sessions[0]?.meta;
    if (!meta?.sessionId || !meta.cwd) continue;
    if ((byId.get(meta.sessionId)?.size ?? -1) < size) byId.set(meta.sessionId, { size, meta });
  }
  const metas = [...byId.values()].map((v) => v.meta);
  const known = [...new Set(metas.map((m) => m.cwd!))];
  let folder = 0;
  let records = 0;
  let worktrees = 0;
  let worktreesRight = 0;
  for (const m of metas) {
    const base = m.cwd!.split(/[\\/]/).filter(Boolean).pop();
    if (base === project) folder++;
    const copy = { ...m, project: undefined, projectGuess: undefined };
    setSessionProject(copy, '/nonexistent-home', known);
    if (copy.project === project) records++;
    if (base !== project) {
      worktrees++;
      if (copy.project === project) worktreesRight++;
    }
  }
  console.log(`  projects over all ${metas.length} sessions with a cwd in ${dir}: folder name ${folder} (${((100 * folder) / metas.length).toFixed(1)}%), transcript records ${records} (${((100 * records) / metas.length).toFixed(1)}%); of the ${worktrees} in a folder not named ${project} (worktrees, renamed checkouts): ${worktreesRight} right`);
}

export async function run(): Promise<void> {
  const { parseExtractionSet, scoreExtraction, formatExtractionScore } = await import('../src/core/extract/eval-extraction.js');
  const { runExtractionEval } = await import('../sidecar/cli/commands/eval-extraction.js');
  const { RulesBackend } = await import('../src/core/extract/backends/rules.js');
  const { readTranscriptFile } = await import('../sidecar/hosting/transcript-files.js');
  for (const f of fs.readdirSync(sets).filter((x) => x.endsWith('.json')).sort()) {
    const file = path.join(sets, f);
    const set = parseExtractionSet(fs.readFileSync(file, 'utf8'), file);
    const fromEnv = set.transcriptsEnv ? process.env[set.transcriptsEnv] : undefined;
    const dir = set.transcriptsEnv ? path.resolve(fromEnv ?? '') : path.join(shared, set.transcripts ?? 'corpus/transcripts');
    if (set.transcriptsEnv && !fromEnv) {
      console.log(`  ${f}: skipped, set ${set.transcriptsEnv} to the folder its sessions were extracted to (see "source" in the file)`);
      continue;
    }
    if (!fs.existsSync(dir)) {
      console.log(`  ${f}: skipped, no transcripts at ${dir} (set ENGRAM_SHARED_DIR)`);
      continue;
    }
    console.log(`  set ${f}: ${set.sessions.length} sessions`);
    const t0 = performance.now();
    const { runs, missing } = await runExtractionEval(set, dir, new RulesBackend({ paid: false }), '/nonexistent-home');
    const ms = performance.now() - t0;
    // The baseline, over the same sessions: each user sentence with a marker word, and the folder's last name.
    const base = [];
    for (const s of set.sessions) {
      const p = path.join(dir, s.file);
      if (!fs.existsSync(p)) continue;
      const session = (await readTranscriptFile(p, { source: p })).sessions[0];
      const notes = [];
      for (const t of session.turns) {
        if (t.role !== 'user' || t.sidechain) continue;
        for (const sentence of t.text.split(/(?<=[.!?])\s+|\n+/)) {
          if (!MARKER_WORDS.test(sentence)) continue;
          const type = /\b(?:let'?s|decided|always|from now on|must)\b/i.test(sentence) ? 'decision' : /\b(?:remember|keep in mind|important)\b/i.test(sentence) ? 'insight' : 'correction';
          notes.push({ type, title: sentence.slice(0, 60), turns: [t.index] });
        }
      }
      const cwd = session.meta.cwd ?? '';
      base.push({ file: s.file, notes, project: cwd.split(/[\\/]/).filter(Boolean).pop() });
    }
    const baseline = scoreExtraction(set, base);
    const rules = scoreExtraction(set, runs);
    for (const line of formatExtractionScore('baseline (user sentences with a marker word; project = folder name)', baseline)) console.log(`  ${line}`);
    for (const line of formatExtractionScore('rules', rules)) console.log(`  ${line}`);
    for (const w of rules.wrong) console.log(`    wrong  ${w.file} turn ${w.turn.join(',')} [${w.type}] ${w.title} (${w.why})`);
    for (const m of rules.missed) console.log(`    missed ${m.file} turn ${m.turn} [${m.type}, ${m.stated}] ${m.quote}`);
    if (missing.length) console.log(`    ${missing.length} annotated sessions not found: ${missing.join(', ')}`);
    console.log(`  time ${(ms / 1000).toFixed(1)} s for rules over the set (2 shared cores, noisy)`);
    if (set.everySessionProject) await everySession(dir, set.everySessionProject);
  }
}
