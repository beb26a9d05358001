// The team store's port: what Engram asks of a shared store that a team runs (PostgreSQL with pgvector, through
// sidecar/hosting/team/), and the rules that stay the same whatever runs it: which notes may leave a vault, how a
// note becomes the passages the store searches, and how team results join a person's own (reciprocal-rank fusion).
// DESIGN.md "Team store": the vault stays each person's own; a person promotes durable notes by review.
import { chunkBody } from '../index/chunk.js';
import { sha256Hex } from '../hash.js';
import { parseNote } from '../note/frontmatter.js';
import { readNoteMeta, titleFromPath } from '../note/meta.js';
import { stripProvenance } from '../note/provenance.js';
import { redactTexts } from '../transcript/redact.js';

/** A note as it is sent to the team: what a member may read, and where it came from. */
export interface TeamNoteInput {
  team: string;
  project: string;
  title: string;
  body: string;
  frontmatter: Record<string, unknown>;
  /** Who promotes it: the member's name in the team (their database role, or the name they set). */
  author: string;
  /** Provenance: the vault's name, the agent session the note came from, and the hash of the note's text. */
  vault: string;
  session?: string;
  sourceHash: string;
  /** The vault path the note was promoted from (the author's own retract/update find it by this). */
  sourcePath: string;
}

export interface TeamPassage {
  heading: string;
  text: string;
}

export interface TeamNote extends Omit<TeamNoteInput, 'frontmatter'> {
  id: string;
  frontmatter: Record<string, unknown>;
  promotedAt: string;
  updatedAt: string;
  retractedAt?: string;
}

export interface TeamHit {
  id: string;
  team: string;
  project: string;
  title: string;
  author: string;
  heading: string;
  snippet: string;
  /** The store's own score (keyword rank fused with vector rank when the store has vectors). */
  score: number;
  promotedAt: string;
  why: string[];
  /**
   * Share of the query's weight in the note's title and this passage, read as the vault's hits read it
   * (SearchHit.coverage): what the floor and the relative cut compare. Set by the local cache's search.
   */
  coverage?: number;
  /** The query's index terms found there (SearchHit.terms): what the hook's relevance gate reads. */
  terms?: string[];
}

export interface TeamQuery {
  text: string;
  /** The query's embedding, when a model is present and the store has vectors. */
  vector?: number[];
  project?: string;
  limit?: number;
}

export type PromoteOutcome =
  | { status: 'promoted'; id: string }
  /** The same text by the same author was promoted before: nothing sent twice. */
  | { status: 'unchanged'; id: string }
  | { status: 'updated'; id: string }
  /** Another member's note with this source: never overwritten, shown as a proposal. */
  | { status: 'conflict'; id: string; author: string };

export interface TeamAuditEntry {
  at: string;
  actor: string;
  action: 'promote' | 'update' | 'retract';
  noteId: string;
  detail: string;
}

/** What a team store does. One implementation talks to PostgreSQL; tests use the same one against PGlite and Postgres. */
export interface TeamStore {
  /** Applies the migrations this version knows; returns the schema version. */
  migrate(): Promise<number>;
  /** Whether the store has vector search (the `vector` extension), or keyword search only. */
  capabilities(): Promise<{ vectors: boolean; schemaVersion: number }>;
  promote(note: TeamNoteInput, passages: TeamPassage[], vectors?: number[][]): Promise<PromoteOutcome>;
  /** Retracts a note; only its author may. Returns false when there is no such note of this author. */
  retract(id: string, author: string): Promise<boolean>;
  search(query: TeamQuery): Promise<TeamHit[]>;
  get(id: string): Promise<TeamNote | undefined>;
  audit(limit?: number): Promise<TeamAuditEntry[]>;
  close(): Promise<void>;
}

/**
 * Everything a note must pass before it leaves the vault: durable, the user's own, and no secret in it (checked again
 * here, whatever capture redacted: a person may have pasted one into the note since). E-mail addresses and home
 * folders are rewritten as capture does; a secret is not rewritten but refused, so the person sees it and decides.
 * The note as the team receives it: title, body without the source footer, the frontmatter, and its passages.
 */
export async function prepareTeamNote(path: string, text: string, who: { team: string; author: string; vault: string; project?: string }): Promise<{ ok: true; note: TeamNoteInput; passages: TeamPassage[] } | { ok: false; reason: string }> {
  const parsed = parseNote(text);
  const data = parsed.data;
  if (data === null) return { ok: false, reason: `${path}: its frontmatter is not valid YAML` };
  const meta = readNoteMeta(path, data);
  if (meta.reviewAfter !== undefined) return { ok: false, reason: `${path} is working memory (it has review_after): working memory stays personal; promote it to a durable note first` };
  if (data.engram_trust === 'outside') return { ok: false, reason: `${path} is outside text (engram_trust: outside): only your own notes go to the team` };
  const ownBody = stripProvenance(parsed.body).trim();
  if (!ownBody) return { ok: false, reason: `${path} has no text to share` };
  const ownTitle = typeof data.title === 'string' && data.title.trim() ? data.title.trim() : titleFromPath(path);
  // One detector call for the three texts.
  const [title, body, fm] = await redactTexts([ownTitle, ownBody, JSON.stringify(data)]);
  const secrets = [title, body, fm].flatMap((r) => Object.keys(r.counts).filter((k) => k !== 'detector-failed'));
  if (secrets.length) return { ok: false, reason: `${path} holds a secret (${[...new Set(secrets)].join(', ')}): take it out of the note before it goes to the team` };
  const note: TeamNoteInput = {
    team: who.team,
    project: who.project ?? meta.project ?? '',
    title: title.text,
    body: body.text,
    frontmatter: JSON.parse(fm.text) as Record<string, unknown>,
    author: who.author,
    vault: who.vault,
    session: meta.engramSession,
    // The note's own text, before rewriting: the same note promoted again is the same source.
    sourceHash: sha256Hex(`${ownTitle}\n${ownBody}`),
    sourcePath: path,
  };
  return { ok: true, note, passages: passagesOf(body.text) };
}

/** A note body as the passages the store searches: the index's own cutting (headings, long sections in pieces). */
function passagesOf(body: string): TeamPassage[] {
  const passages = chunkBody(body).map((c) => ({ heading: c.heading ?? '', text: c.text })).filter((p) => p.text.trim());
  return passages.length ? passages : [{ heading: '', text: body }];
}

/** A note an agent proposed for the team (MCP `team_propose`): nothing is sent until the person approves it. */
export interface TeamProposal {
  path: string;
  /** The vault's folder, where the note is. */
  vaultRoot: string;
  why?: string;
  by: string;
  at: string;
}

/** A promotion the store did not take: another member's live note has its title (docs/team.md "Promotion"). */
export interface TeamConflict {
  path: string;
  title: string;
  /** The other member's note. */
  id: string;
  author: string;
  at: string;
}
