// `engram eval retrieval` indexes BEIR documents by their text and their own title: an id is no title, so numbers in
// a question must not match document ids at title weight.
import { describe, expect, it } from 'vitest';
import { buildEvalIndex, evaluate } from '../../../src/core/index/eval.js';

describe('eval retrieval indexing', () => {
  it('an untitled document is not found by its id; a titled one is found by its title', async () => {
    const docs = [
      { _id: 'conv-1|D1:7', text: 'We talked about apples and pears.' },
      { _id: 'conv-1|D1:8', text: 'The meeting on 7 May was about bananas.' },
      { _id: 'conv-1|D2:1', text: 'Nothing of note.', title: 'Orchard planning' },
    ];
    const { index, idOf } = await buildEvalIndex(docs);
    const ids = async (q: string) => (await index.search(q, { mode: 'bm25', folders: ['conv-1'] })).hits.map((h) => idOf.get(h.path));
    expect(await ids('what happened on 7 may')).toEqual(['conv-1|D1:8']);
    expect(await ids('d1')).toEqual([]);
    expect(await ids('orchard')).toEqual(['conv-1|D2:1']);
    const r = await evaluate(index, idOf, [{ _id: 'q1', text: 'what happened on 7 May?' }], new Map([['q1', new Set(['conv-1|D1:8'])]]), { mode: 'bm25' });
    expect(r.overall['R@1']).toBe(1);
  });
});
