// The relevance bar measured on LoCoMo-dev: a vault with one note per dialogue turn (project = conversation),
// the questions as prompts (does a relevant note get injected?) and off-topic prompts (is nothing injected?).
import fs from 'node:fs';
import path from 'node:path';
import { Engine, IndexedVault } from '../../src/core/engine.js';
import { MemoryVault } from '../../src/core/ports/memory-vault.js';
import { systemClock } from '../../src/core/ports.js';
import { VaultIndex } from '../../src/core/index/vault-index.js';
import type { GateConfig } from '../../src/core/recall/gate.js';

export interface BarResult {
  questions: number;
  relevantInjected: number;
  anyInjected: number;
  offTopic: number;
  offTopicSilent: number;
  meanItems: number;
  byCategory: Record<string, { n: number; hit: number }>;
}

function readJsonl<T>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
}

export function turnPath(id: string): string {
  const [conv, dia] = id.split('|');
  return `${conv}/${dia.replace(':', '-')}.md`;
}

export type Granularity = 'session' | 'turn';

/** One note per session (its turns in order) or per turn; the note's project is the conversation. */
export function notePath(id: string, granularity: Granularity): string {
  if (granularity === 'turn') return turnPath(id);
  const [conv, dia] = id.split('|');
  return `${conv}/Session ${/^D(\d+)/.exec(dia)![1]}.md`;
}

export async function buildLocomoEngine(dir: string, granularity: Granularity = 'session', gate?: Partial<GateConfig>): Promise<Engine> {
  const vault = new MemoryVault();
  const notes = new Map<string, { conv: string; lines: string[] }>();
  for (const d of readJsonl<{ _id: string; text: string }>(path.join(dir, 'corpus_turn.jsonl'))) {
    const conv = d._id.split('|')[0];
    const p = notePath(d._id, granularity);
    const n = notes.get(p) ?? { conv, lines: [] };
    n.lines.push(d.text.trim());
    notes.set(p, n);
  }
  for (const [p, n] of notes) await vault.create(p, `---\nproject: ${n.conv}\nscope: project\n---\n${n.lines.join('\n\n')}\n`);
  const index = new VaultIndex({ vault, yieldNow: () => Promise.resolve() });
  const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: () => Promise.resolve() }, index: new IndexedVault(index) });
  if (gate) Object.assign(engine.config.gate, gate);
  await engine.start();
  return engine;
}

export async function measureBar(engine: Engine, dir: string, offTopic: string[], granularity: Granularity = 'session'): Promise<BarResult> {
  const queries = readJsonl<{ _id: string; text: string; category: number }>(path.join(dir, 'queries_turn.jsonl'));
  const qrels = new Map<string, Set<string>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels_turn.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, doc] = line.split('\t');
    if (!q || !doc) continue;
    if (!qrels.has(q)) qrels.set(q, new Set());
    qrels.get(q)!.add(notePath(doc, granularity));
  }
  const res: BarResult = { questions: 0, relevantInjected: 0, anyInjected: 0, offTopic: offTopic.length, offTopicSilent: 0, meanItems: 0, byCategory: {} };
  let items = 0;
  for (const q of queries) {
    const rel = qrels.get(q._id);
    if (!rel) continue;
    const conv = q._id.split('|')[0];
    const ctx = await engine.context({ event: 'UserPromptSubmit', prompt: q.text, sessionId: `q-${q._id}-${Math.random()}`, project: conv, maxChars: 1500, maxItems: 5 });
    res.questions++;
    const cat = (res.byCategory[String(q.category)] ??= { n: 0, hit: 0 });
    cat.n++;
    if (ctx.items.length) res.anyInjected++;
    items += ctx.items.length;
    if (ctx.items.some((i) => rel.has(i.path))) {
      res.relevantInjected++;
      cat.hit++;
    }
  }
  res.meanItems = items / Math.max(1, res.questions);
  const convs = [...new Set(queries.map((q) => q._id.split('|')[0]))];
  for (const [i, prompt] of offTopic.entries()) {
    const ctx = await engine.context({ event: 'UserPromptSubmit', prompt, sessionId: `off-${i}-${Math.random()}`, project: convs[i % convs.length], maxChars: 1500, maxItems: 5 });
    if (!ctx.items.length) res.offTopicSilent++;
  }
  return res;
}
