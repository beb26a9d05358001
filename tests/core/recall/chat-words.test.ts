// The relevance gate's words of conversation in the user's language (issue 31): a prompt that only thanks, agrees or
// says "go on" in Chinese, Japanese, Korean, German, French or Spanish injects nothing, even into a vault whose notes
// use the same words, and a question that opens with them still gets its note. Notes and prompts here were written by
// us (no real non-English prompts are in the corpus); each note uses the chit-chat words of its language on purpose.
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../src/core/engine.js';
import { MemoryVault } from '../../../src/core/ports/memory-vault.js';
import { systemClock } from '../../../src/core/ports.js';
import { contentTerms } from '../../../src/core/recall/term-stats.js';
import { DEFAULT_GATE } from '../../../src/core/recall/gate.js';

const NOTES: Record<string, string> = {
  'Team/代码评审.md': '# 代码评审的约定\n\n评审时如果代码看起来不错，就回复“好的，没问题”，然后继续合并。谢谢每一位评审者。',
  'Team/レビュー.md': '# コードレビューの進め方\n\nレビューで問題がなければ「いい感じです、ありがとうございます」と返して、マージを続けてください。',
  'Team/코드 리뷰.md': '# 코드 리뷰 방법\n\n리뷰에서 문제가 없으면 "좋아요, 감사합니다"라고 답하고 병합을 계속해 주세요.',
  'Team/Code-Review.md': '# Code-Review\n\nWenn der Code gut aussieht, schreib "Danke, passt so" und mach mit dem Merge weiter. Bitte vorher die Tests laufen lassen.',
  'Team/Revue de code.md': '# Revue de code\n\nSi le code est bon, réponds « Merci, parfait » et continue la fusion. Vas-y seulement après les tests.',
  'Team/Revisión de código.md': '# Revisión de código\n\nSi el código se ve bien, responde "Gracias, perfecto" y sigue con la fusión. Vale la pena correr las pruebas antes.',
};

// [language, chit-chat prompts, a question that opens with thanks, the note it is about]
const CASES: [string, string[], string, string][] = [
  ['zh', ['谢谢，看起来不错，继续吧', '好的，没问题，就这样'], '谢谢！代码评审以后怎么合并？', 'Team/代码评审.md'],
  ['ja', ['ありがとう、いい感じです。続けてください', 'はい、お願いします'], 'ありがとう。コードレビューのあとのマージはどう進めますか？', 'Team/レビュー.md'],
  ['ko', ['고마워요, 좋아 보여요. 계속해 주세요', '네, 좋아요. 그렇게 해 주세요'], '고마워요. 코드 리뷰 후에 병합은 어떻게 하나요?', 'Team/코드 리뷰.md'],
  ['de', ['Danke, sieht gut aus, mach weiter', 'Alles klar, passt so, danke!'], 'Danke! Wie läuft der Merge nach dem Code-Review?', 'Team/Code-Review.md'],
  ['fr', ['Parfait, vas-y, merci beaucoup', 'Merci, c’est parfait, continuez'], 'Merci ! Comment faire la fusion après la revue de code ?', 'Team/Revue de code.md'],
  ['es', ['Gracias, se ve bien, sigue', 'Vale, perfecto, muchas gracias'], 'Gracias. ¿Cómo se hace la fusión después de la revisión de código?', 'Team/Revisión de código.md'],
];

describe('words of conversation in the user\'s language', () => {
  it.each(CASES)('%s: chit-chat leaves fewer topic terms than the gate asks for', (_lang, chat) => {
    for (const p of chat) expect(contentTerms(p).length, p).toBeLessThan(DEFAULT_GATE.minPromptTerms);
  });

  it('injects nothing for chit-chat in six languages, and the note for a question that opens with thanks', async () => {
    const vault = new MemoryVault({ files: NOTES });
    const engine = new Engine({ ports: { vault, clock: systemClock, yieldNow: () => Promise.resolve() } });
    await engine.start();
    let session = 0;
    const ask = (prompt: string) => engine.context({ event: 'UserPromptSubmit', prompt, sessionId: `s${++session}`, maxChars: 1500, maxItems: 5 });
    for (const [lang, chat, question, note] of CASES) {
      for (const p of chat) expect((await ask(p)).items.map((i) => i.path), `${lang}: ${p}`).toEqual([]);
      expect((await ask(question)).items.map((i) => i.path), `${lang}: ${question}`).toContain(note);
    }
  });
});
