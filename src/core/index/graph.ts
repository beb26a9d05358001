// The wikilink graph over an index's live notes, for link expansion in search and related notes.
import { linkKey } from './note-doc.js';
import type { TextIndex } from './text-index.js';

export interface LinkGraph {
  out: (slot: number) => number[];
  back: (slot: number) => number[];
}

/** Builds the wikilink graph over live notes: by title key, outgoing links resolved, and their reverse. */
export function buildGraph(text: TextIndex): LinkGraph {
  const byKey = new Map<string, number>();
  text.notes.forEach((n, slot) => {
    if (n) byKey.set(linkKey(n.path), slot);
  });
  const out = new Map<number, number[]>();
  const back = new Map<number, number[]>();
  text.notes.forEach((n, slot) => {
    if (!n) return;
    const targets: number[] = [];
    for (const k of n.links) {
      const t = byKey.get(k);
      if (t === undefined || t === slot) continue;
      targets.push(t);
      const b = back.get(t) ?? [];
      b.push(slot);
      back.set(t, b);
    }
    out.set(slot, targets);
  });
  return { out: (s) => out.get(s) ?? [], back: (s) => back.get(s) ?? [] };
}
