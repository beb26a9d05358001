// What curation needs to know about the vault and the user's choices. Hosts fill it from config.json;
// the defaults follow docs/files.md.
import { DEFAULT_FOLDERS, type Folders } from '../note/route';

export type CurateFolders = Folders;

export interface CurateSettings {
  folders: CurateFolders;
  /** Device name in the log note's file name (one log per device and month, so sync tools do not conflict). */
  device: string;
  /** Who applies changes, for the log: `cli`, `mcp`, `plugin`. */
  actor: string;
  /** Cosine similarity at or above which two notes that share a tag or link are merge candidates. */
  mergeThreshold: number;
  /** Confidence (0..1) the evidence must reach for a merge to be proposed (per vault: `curate.merge_confidence`). */
  mergeConfidence: number;
  /** The vault's templates folders (Obsidian's Templates and Templater settings); folders named Templates count too. */
  templatesFolders?: string[];
  /** Notes whose body has at least this many characters and `splitMinSections` top-level headings are split candidates. */
  splitMinChars: number;
  splitMinSections: number;
  /** Nearest neighbours compared per note when looking for merges. */
  neighbours: number;
  /** Tags and link targets shared by more notes than this are too broad to generate pairs (they still count as shared). */
  maxGroupForPairs: number;
  /** Archive after this many days from `created`, per type (when `forget_after` is absent). */
  ttlDays: Record<string, number>;
  /** A note not recalled in this many days is stale. */
  staleDays: number;
  /** Default extension of a working-memory note, in weeks. */
  extendWeeks: number;
  /** Proposals expire after this many days. */
  proposalDays: number;
}

export const DEFAULT_CURATE_SETTINGS: CurateSettings = {
  folders: DEFAULT_FOLDERS,
  device: 'device',
  actor: 'cli',
  mergeThreshold: 0.88,
  mergeConfidence: 0.7,
  splitMinChars: 12_000,
  splitMinSections: 3,
  neighbours: 8,
  maxGroupForPairs: 60,
  ttlDays: {},
  staleDays: 90,
  extendWeeks: 4,
  proposalDays: 7,
};

export function curateSettings(overrides: Partial<CurateSettings> = {}): CurateSettings {
  return {
    ...DEFAULT_CURATE_SETTINGS,
    ...overrides,
    folders: { ...DEFAULT_CURATE_SETTINGS.folders, ...(overrides.folders ?? {}) },
    ttlDays: { ...DEFAULT_CURATE_SETTINGS.ttlDays, ...(overrides.ttlDays ?? {}) },
  };
}

export function inFolder(path: string, folder: string): boolean {
  const f = folder.replace(/\/+$/, '');
  return f === '' || path === f || path.startsWith(`${f}/`);
}


