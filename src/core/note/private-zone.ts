// Private zones: vault folders, tags and projects the user marks private (`privacy.private_folders`,
// `privacy.private_tags`, `privacy.private_projects`). A note in one is never injected by a hook, never given to an
// agent (MCP recall and read), and never sent to an LLM (extraction's vocabulary of titles and tags, review's and
// restructure's model calls); the person still finds it with their own search.

export interface PrivateZones {
  folders: readonly string[];
  /** Without `#`; a tag matches itself and its nested tags (`private` covers `private/health`). */
  tags: readonly string[];
  /** Projects (a note's `project`), matched without regard to case. */
  projects?: readonly string[];
}

export const NO_PRIVATE_ZONES: PrivateZones = { folders: [], tags: [], projects: [] };

const bare = (t: string) => t.trim().replace(/^#/, '').toLowerCase();

/** Why a note is private (`folder Journal`, `tag #private`, `project acme`), or undefined when it is not. */
export function privateZoneOf(note: { path: string; tags?: readonly string[]; project?: string }, zones: PrivateZones): string | undefined {
  const folder = zones.folders.find((f) => note.path === f || note.path.startsWith(`${f.replace(/\/+$/, '')}/`));
  if (folder !== undefined) return `private folder ${folder}`;
  const project = note.project?.trim().toLowerCase();
  if (project && zones.projects?.some((p) => p.trim().toLowerCase() === project)) return `private project ${note.project}`;
  if (!zones.tags.length || !note.tags?.length) return undefined;
  const wanted = zones.tags.map(bare).filter(Boolean);
  for (const t of note.tags.map(bare)) {
    const hit = wanted.find((w) => t === w || t.startsWith(`${w}/`));
    if (hit !== undefined) return `private tag #${hit}`;
  }
  return undefined;
}
