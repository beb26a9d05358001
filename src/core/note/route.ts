// Which vault folder a note belongs in (docs/files.md).
import { vaultJoin } from '../path.js';
import { folderSegment } from './filename.js';

export interface Folders {
  inbox: string;
  projects: string;
  workingMemory: string;
  archive: string;
  log: string;
}

export const DEFAULT_FOLDERS: Folders = {
  inbox: 'Engram/Inbox',
  projects: 'Engram/Projects',
  workingMemory: 'Engram/Working memory',
  archive: 'Engram/Archive',
  log: 'Engram/Log',
};

/** Reads the folder keys of an effective configuration (anything with `get(key)`). */
export function foldersFromConfig(config: { get(key: 'folders.inbox' | 'folders.projects' | 'folders.working_memory' | 'folders.archive' | 'folders.log'): string }): Folders {
  return {
    inbox: config.get('folders.inbox'),
    projects: config.get('folders.projects'),
    workingMemory: config.get('folders.working_memory'),
    archive: config.get('folders.archive'),
    log: config.get('folders.log'),
  };
}

export interface RouteInput {
  scope?: 'project' | 'general';
  project?: string;
  /** Working memory (has a review date): reviewed later rather than filed. */
  workingMemory?: boolean;
}

/** Working memory → working-memory folder; project beats → `Projects/<project>`; everything else → inbox. */
export function routeFolder(input: RouteInput, folders: Folders = DEFAULT_FOLDERS): string {
  if (input.workingMemory) return vaultJoin(folders.workingMemory);
  if (input.scope === 'project' && input.project?.trim()) return vaultJoin(folders.projects, folderSegment(input.project));
  return vaultJoin(folders.inbox);
}

/** The change log of one device for one month: `Log/<device> <yyyy-mm>.md` (one per device, so sync tools never conflict). */
export function logNotePath(device: string, epochMs: number, folders: Folders = DEFAULT_FOLDERS): string {
  const d = new Date(epochMs);
  const month = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
  return vaultJoin(folders.log, `${folderSegment(device)} ${month}.md`);
}
