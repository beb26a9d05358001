// A beat: one thing worth keeping from a session, as the LLM (or the rules backend) proposes it.

export type Durability = 'durable' | 'working';

export interface Beat {
  type: string;
  title: string;
  summary: string;
  body: string;
  scope: 'project' | 'general';
  durability: Durability;
  tags: string[];
  /** Titles of existing notes this beat relates to (kept only when the note exists). */
  related: string[];
  confidence: number;
  /** Indices of the turns the beat came from. */
  turns: number[];
  /** At least 20 characters copied from those turns. */
  quote: string;
}

export const MIN_QUOTE_CHARS = 20;
export const DEFAULT_MAX_BEATS = 5;
