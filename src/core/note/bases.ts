// Obsidian-native views of Engram's notes: `.base` files (Obsidian's Bases core plugin) that `engram setup` offers in
// the Engram folder. They read only the flat properties Engram keeps in notes (`type`, `project`, `created`,
// `review_after`, `engram_source`, `locked`), so Obsidian shows, sorts and filters them with no plugin code.

export interface BaseFolders {
  /** The Engram folder the views live in and look at (the parent of the inbox, projects and working-memory folders). */
  root: string;
  working: string;
  archive: string;
}

const q = (s: string) => JSON.stringify(s);
/** A YAML single-quoted scalar (the expressions hold double quotes). */
const y = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The views, by file name (under `folders.root`), as Bases YAML. */
export function engramBases(f: BaseFolders, staleDays = 90): Record<string, string> {
  // Engram's notes outside the archive, and what each view adds.
  const scope = (extra: string[]) =>
    ['filters:', '  and:', `    - ${y('file.ext == "md"')}`, `    - ${y(`file.inFolder(${q(f.root)})`)}`, '    - not:', `        - ${y(`file.inFolder(${q(f.archive)})`)}`, ...extra.map((x) => `    - ${y(x)}`)].join('\n');
  return {
    'Working memory due.base': `${scope(['file.hasProperty("review_after")', 'note.review_after <= today()'])}
views:
  - type: table
    name: Due for review
    order:
      - file.name
      - note.review_after
      - note.project
      - note.type
      - note.locked
    sort:
      - property: note.review_after
        direction: ASC
`,
    'Decisions by project.base': `${scope(['note.type == "decision"'])}
views:
  - type: table
    name: Decisions
    groupBy:
      property: note.project
      direction: ASC
    order:
      - file.name
      - note.project
      - note.created
      - note.summary
    sort:
      - property: note.created
        direction: DESC
`,
    'Recently captured.base': `${scope(['file.hasProperty("engram_source")', 'file.ctime > now() - "14 days"'])}
views:
  - type: table
    name: Last two weeks
    order:
      - file.name
      - note.type
      - note.project
      - note.engram_source
      - file.ctime
    sort:
      - property: file.ctime
        direction: DESC
`,
    'Stale.base': `${scope([`file.mtime < now() - "${staleDays} days"`, 'note.locked != true'])}
views:
  - type: table
    name: Not changed in ${staleDays} days
    order:
      - file.name
      - note.type
      - note.project
      - file.mtime
    sort:
      - property: file.mtime
        direction: ASC
`,
  };
}

/**
 * Whether Obsidian's Bases core plugin is there, from `<configDir>/core-plugins.json`: `on` (listed and enabled),
 * `off` (known to this Obsidian, turned off), or `absent` (an Obsidian without Bases, or no such file).
 */
export function basesPlugin(coreJson: string | null): 'on' | 'off' | 'absent' {
  if (!coreJson) return 'absent';
  let v: unknown;
  try {
    v = JSON.parse(coreJson);
  } catch {
    return 'absent';
  }
  // Older Obsidian: an array of enabled ids; newer: an object of id → enabled.
  if (Array.isArray(v)) return v.includes('bases') ? 'on' : 'absent';
  if (v && typeof v === 'object' && 'bases' in v) return (v as Record<string, unknown>).bases === true ? 'on' : 'off';
  return 'absent';
}
