// What a host gives the engine. The engine reaches files, processes, time and models only through these.

/** A vault-relative path with forward slashes, e.g. `Engram/Inbox/Use pnpm.md`. */
export type VaultPath = string;

export interface VaultFileInfo {
  path: VaultPath;
  /** Modification time, epoch ms. */
  mtime: number;
  size: number;
  /** Set when the note is a symbolic link (to a file inside the vault; links leading out are never listed or read). */
  symlink?: boolean;
}

export interface VaultFile extends VaultFileInfo {
  text: string;
}

export type VaultChange =
  | { kind: 'create' | 'modify'; path: VaultPath }
  | { kind: 'delete'; path: VaultPath }
  | { kind: 'rename'; path: VaultPath; oldPath: VaultPath };

export interface VaultPort {
  /** Every Markdown file of the vault, outside its config and trash folders. */
  list(): Promise<VaultFileInfo[]>;
  /** The Markdown files a sync tool left beside notes (note/conflict-copy.ts), which `list` leaves out; sorted. */
  listConflictCopies(): Promise<VaultPath[]>;
  /** Reads one file; rejects with a NotFound EngramError when it is missing. */
  read(path: VaultPath): Promise<VaultFile>;
  exists(path: VaultPath): Promise<boolean>;
  /** Creates a new file (and its folders); rejects with a Conflict EngramError when it exists. */
  create(path: VaultPath, text: string): Promise<VaultFileInfo>;
  /**
   * Replaces a file only if its content is still `expected` (what the caller read);
   * otherwise rejects with a Conflict EngramError and leaves the file alone.
   */
  writeIfUnchanged(path: VaultPath, expected: string, text: string): Promise<VaultFileInfo>;
  /**
   * Adds text at the end of an existing file, without reading it first: appends from several writers at once (two
   * processes, two `engram forget`s) all land. Rejects with a NotFound EngramError when the file is missing.
   */
  append(path: VaultPath, text: string): Promise<void>;
  /** Moves a file to the vault's trash (recoverable). */
  trash(path: VaultPath): Promise<void>;
  /** Renames a file; rejects with a Conflict EngramError when the target exists. */
  rename(from: VaultPath, to: VaultPath): Promise<void>;
  /** Follows changes made by anyone; returns a function that stops watching. */
  watch(onChange: (change: VaultChange) => void): () => void;
}

/** Turns texts into unit-length vectors. Implemented by hosts (transformers.js lives outside core). */
export interface Embedder {
  /** Model identity, stored in snapshots; a different id means vectors must be recomputed. */
  readonly modelId: string;
  readonly dimension: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface SpawnRequest {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
}

export interface SpawnResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface SpawnPort {
  run(request: SpawnRequest): Promise<SpawnResult>;
}

export interface Clock {
  /** Epoch ms. */
  now(): number;
}

/** Lets long work give the host's event loop (Obsidian's UI) a turn. */
export type Yield = () => Promise<void>;

export interface Ports {
  vault: VaultPort;
  embedder?: Embedder;
  spawn?: SpawnPort;
  clock: Clock;
  yieldNow: Yield;
}

export const systemClock: Clock = { now: () => Date.now() };
export const yieldToEventLoop: Yield = () => new Promise((resolve) => setTimeout(resolve, 0));
