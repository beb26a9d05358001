// The one tokenizer: the index's terms (stop words out, stemmed), the options similarity measures use, the user's words.
import { describe, expect, it } from 'vitest';
import { Tokenizer } from '../../../src/core/index/tokenize.js';
import { contentTerms } from '../../../src/core/recall/term-stats.js';

const tokenizer = new Tokenizer();

describe('Tokenizer', () => {
  it('drops stop words and stems word forms together', () => {
    expect(tokenizer.terms('the and of')).toEqual([]);
    expect(tokenizer.terms('merging')).toEqual(tokenizer.terms('merges'));
    expect(tokenizer.terms('Workspaces')).toEqual(tokenizer.terms('workspace'));
  });

  it('reads English irregular forms as their base (a question asks "go", a conversation says "went")', () => {
    expect(tokenizer.terms('When did Caroline go to the support group')).toEqual(tokenizer.terms('Caroline went to a support group'));
    expect(tokenizer.terms('ran')).toEqual(tokenizer.terms('running'));
    expect(tokenizer.terms('children')).toEqual(tokenizer.terms('child'));
    // A form that is a word of its own stays itself.
    expect(tokenizer.terms('left join')).not.toEqual(tokenizer.terms('leave join'));
    // Plain BM25's tokenizer (comparisons) does nothing of the kind.
    expect(new Tokenizer({ stemming: false }).terms('went')).toEqual(['went']);
  });

  it('keeps compounds whole only when asked', () => {
    expect(tokenizer.terms('pnpm-lock.yaml')).toHaveLength(3);
    const joined = new Tokenizer({ compounds: true });
    expect(joined.terms('pnpm-lock.yaml')).toHaveLength(1);
    expect(joined.terms('pre-order')).not.toEqual(joined.terms('post-order'));
    expect(joined.terms('a - b')).toEqual(tokenizer.terms('a - b'));
  });

  it('keeps stop words only when asked', () => {
    const all = new Tokenizer({ stopWords: false });
    expect(all.terms('LLVM and')).not.toEqual(all.terms('LLVM or'));
    expect(tokenizer.terms('LLVM and')).toEqual(tokenizer.terms('LLVM or'));
  });

  it('extra stop words extend the one list, never replace it', () => {
    const more = new Tokenizer({ extraStopWords: ['thanks'] });
    expect(more.terms('thanks for the notes')).toEqual(tokenizer.terms('notes'));
    expect(tokenizer.terms('thanks')).not.toEqual([]);
  });

  it('maps each term back to the word the text used', () => {
    const said = tokenizer.wordsByTerm('Merging Workspaces, the notes');
    expect([...said.values()]).toEqual(['Merging', 'Workspaces', 'notes']);
    for (const [term, word] of said) expect(tokenizer.terms(word)).toEqual([term]);
  });
});

describe('contentTerms (the relevance gate)', () => {
  it('leaves out the words of conversation as well as stop words', () => {
    expect(contentTerms('thanks, that looks good, perfect')).toEqual(tokenizer.terms('perfect'));
    expect(contentTerms('pnpm workspaces pnpm')).toEqual(tokenizer.terms('pnpm workspaces'));
  });
});
