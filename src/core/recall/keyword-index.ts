// A small BM25 index over whole notes: the engine's fallback when no VaultIndex is plugged in (and in tests).
import type { SearchHit, SearchOptions } from '../index/types.js';
import { makeSnippet } from '../index/rank.js';
import { tokenize, isStopWord, wordsByTerm } from './terms.js';

interface Doc {
  path: string;
  title: string;
  text: string;
  tf: Map<string, number>;
  len: number;
  project?: string;
  type?: string;
  scope?: string;
  summary?: string;
}

export interface KeywordDoc {
  path: string;
  title: string;
  text: string;
  project?: string;
  type?: string;
  scope?: string;
  summary?: string;
}

export class KeywordIndex {
  private readonly docs = new Map<string, Doc>();
  private readonly postings = new Map<string, Set<string>>();
  private totalLen = 0;

  get size(): number {
    return this.docs.size;
  }

  upsert(d: KeywordDoc): void {
    this.remove(d.path);
    const tf = new Map<string, number>();
    // The title counts three times: a note named after the topic is the best answer.
    const tokens = [...tokenize(d.title), ...tokenize(d.title), ...tokenize(d.title), ...tokenize(d.summary ?? ''), ...tokenize(d.text)].filter(
      (t) => !isStopWord(t),
    );
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    const doc: Doc = { ...d, tf, len: tokens.length };
    this.docs.set(d.path, doc);
    this.totalLen += doc.len;
    for (const t of tf.keys()) {
      let set = this.postings.get(t);
      if (!set) this.postings.set(t, (set = new Set()));
      set.add(d.path);
    }
  }

  remove(path: string): void {
    const old = this.docs.get(path);
    if (!old) return;
    this.docs.delete(path);
    this.totalLen -= old.len;
    for (const t of old.tf.keys()) {
      const set = this.postings.get(t);
      set?.delete(path);
      if (set && set.size === 0) this.postings.delete(t);
    }
  }

  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const terms = [...new Set(tokenize(query).filter((t) => !isStopWord(t)))];
    const n = this.docs.size;
    if (!n || !terms.length) return [];
    const avg = this.totalLen / n;
    const k1 = 1.2;
    const b = 0.75;
    const scores = new Map<string, { score: number; matched: string[] }>();
    for (const t of terms) {
      const posting = this.postings.get(t);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const path of posting) {
        const doc = this.docs.get(path)!;
        if (opts.projects?.length && !opts.projects.includes(doc.project ?? '') && !(opts.generalToo && (!doc.project || doc.scope === 'general'))) continue;
        if (opts.excludeFolders?.some((f) => path.startsWith(`${f}/`))) continue;
        if (opts.types?.length && !opts.types.includes(doc.type ?? '')) continue;
        const f = doc.tf.get(t) ?? 0;
        const s = (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * doc.len) / avg));
        const cur = scores.get(path) ?? { score: 0, matched: [] };
        cur.score += s;
        cur.matched.push(t);
        scores.set(path, cur);
      }
    }
    const said = wordsByTerm(query);
    return [...scores.entries()]
      .sort((a, b2) => b2[1].score - a[1].score)
      .slice(0, opts.limit ?? 10)
      .map(([path, s]) => {
        const doc = this.docs.get(path)!;
        return {
          path,
          title: doc.title,
          score: s.score,
          snippet: makeSnippet(doc.text, query.split(/\s+/), 300),
          why: [`words: ${s.matched.slice(0, 5).map((t) => said.get(t) ?? t).join(', ')}`],
          type: doc.type,
          project: doc.project,
          summary: doc.summary,
        };
      });
  }
}
