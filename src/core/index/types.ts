// What callers (CLI, hooks, MCP, curation) ask of the index, and what they get back.

export interface SearchFilters {
  types?: string[];
  scope?: 'project' | 'general';
  /** Notes of these projects (recall adds `scope: general` notes itself). */
  projects?: string[];
  durability?: 'durable' | 'working';
  folders?: string[];
  tags?: string[];
  /** Epoch ms bounds on the note's created/updated time. */
  since?: number;
  until?: number;
  /** Notes in these folders (and below) are left out: recall's archive. Not a filter of its own for an empty query. */
  excludeFolders?: string[];
  /** With `projects`: notes of scope general and notes of no project stay too (docs/configuration.md, which project). */
  generalToo?: boolean;
}

export interface SearchOptions extends SearchFilters {
  limit?: number;
  mode?: 'hybrid' | 'bm25' | 'vector';
  /** Follow wikilinks and backlinks this many hops (0 = off). */
  expandLinks?: 0 | 1 | 2;
  /**
   * Read time phrases in the query ("yesterday", "last week", "in March") as date filters (default true). When the
   * phrase leaves nothing, results from any date come back with a notice.
   */
  timePhrases?: boolean;
  /**
   * Leave out hits that cover less than RELATIVE_COVER of what the best hit covers of the query (default true): right
   * for a question, wrong for a bag of a note's words (the related pane), where any of them is a tie.
   */
  relativeCut?: boolean;
  /**
   * Notes the caller will not show (an agent's answer leaves out private notes): they are no candidates, so they
   * neither take a place among the `limit` hits nor set the bar of the relative cut for the notes that are shown.
   */
  hidden?: (path: string) => boolean;
}

export interface SearchHit {
  path: string;
  title: string;
  score: number;
  /** The best-matching chunk's text, shortened. */
  snippet: string;
  /** Heading of the best chunk, when the note is chunked. */
  heading?: string;
  /** Why it matched, for people: e.g. ["title: sidecar", "meaning", "linked from [[X]]"]. */
  why: string[];
  type?: string;
  project?: string;
  summary?: string;
  /** Set when the hit came from link expansion, not the query itself. */
  via?: string;
  /**
   * Share of the query's weight (its terms weighed by rarity across passages) found in the note's title, summary, tags
   * and best passage: what the floor reads ("no close match" below it). 1 for a hit of filters alone.
   */
  coverage?: number;
  /** The note's size in characters (bytes of its file): what opening it costs. */
  chars?: number;
  /** The query's index terms found there (stems: the relevance gate compares them with the prompt's). */
  terms?: string[];
}
