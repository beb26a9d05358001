// Cost estimates in US dollars per million tokens. Rough list prices; a user price in config wins.
// Unknown models cost 0 in the estimate, and the usage record says the price was unknown.

export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

const PRICES: [RegExp, Price][] = [
  [/haiku-4|haiku-3-5|3-5-haiku/, { inputPerMTok: 1, outputPerMTok: 5 }],
  [/haiku/, { inputPerMTok: 0.25, outputPerMTok: 1.25 }],
  [/sonnet/, { inputPerMTok: 3, outputPerMTok: 15 }],
  [/opus-4-[5-9]|opus-4\.[5-9]|opus-[5-9]/, { inputPerMTok: 5, outputPerMTok: 25 }],
  [/opus/, { inputPerMTok: 15, outputPerMTok: 75 }],
  [/gpt-4o-mini|gpt-4\.1-mini|gpt-5-mini/, { inputPerMTok: 0.25, outputPerMTok: 2 }],
  [/gpt-4o|gpt-4\.1|gpt-5/, { inputPerMTok: 2.5, outputPerMTok: 10 }],
];

export function priceFor(model: string, override?: Price): Price | undefined {
  if (override) return override;
  const m = model.toLowerCase();
  return PRICES.find(([re]) => re.test(m))?.[1];
}

export function estimateCost(model: string, inputTokens: number, outputTokens: number, override?: Price): number {
  const p = priceFor(model, override);
  if (!p) return 0;
  return (inputTokens * p.inputPerMTok + outputTokens * p.outputPerMTok) / 1_000_000;
}

/** A rough token count for text when a backend reports none (about 4 characters a token). */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
