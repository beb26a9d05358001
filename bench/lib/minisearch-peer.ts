// MiniSearch 7.2 set up as the benches compare it with Engram: two fields (title at 3×, body), and each word MiniSearch
// splits lower-cased, dropped if it is one of Engram's stop words, else stemmed with Engram's English stemmer (Orama's
// Porter stemmer, as tokenize.ts uses it). Used by index-peers (speed) and index (LoCoMo quality).
import type { Options } from 'minisearch';
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { STOP_WORDS } from '../../src/core/index/tokenize.js';

/** What MiniSearch indexes per document. */
export interface PeerDoc {
  id: string;
  title: string;
  body: string;
}

const stem = (oramaTokenizer.createTokenizer({ language: 'english', stemming: true }) as unknown as { stemmer: (w: string) => string }).stemmer;
const processTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : stem(t);
};

/** The same, each word stemmed once (a cache as Engram's tokenizer keeps): MiniSearch at its fastest. */
const stemCache = new Map<string, string | null>();
const processTermCached = (term: string): string | null => {
  let t = stemCache.get(term);
  if (t === undefined) stemCache.set(term, (t = processTerm(term)));
  return t;
};

/** MiniSearch's options: `cached` stems each word once. */
export function miniSearchOptions(cached = false): Options<PeerDoc> {
  return { fields: ['title', 'body'], storeFields: ['title'], processTerm: cached ? processTermCached : processTerm, searchOptions: { boost: { title: 3 } } };
}
