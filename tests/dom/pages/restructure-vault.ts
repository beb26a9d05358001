// The restructure pane's vault for its test and bench: two merge pairs (close in words, sharing a tag), a release guide
// of over 12,000 characters and a handbook of 60,000, each in three sections (splits), and notes that link to all of them.
export const NOW = Date.parse('2026-03-10T12:00:00Z');

const para = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Point ${i + 1} on ${topic}: the ${topic} step is checked, logged and kept short so the next reader can follow it.`).join('\n');

/** A note of three top-level sections, each about a third of `chars` characters. */
export function guide(chars = 13_500, tag = 'release', sections = ['Prepare', 'Build', 'Publish']): string {
  const lines = Math.ceil(chars / 3 / 115);
  const body = sections.flatMap((s) => [`## ${s}`, '', para(s.toLowerCase(), lines), '']);
  return ['---', 'type: reference', `tags: [${tag}]`, '---', `How we ${tag === 'release' ? 'ship a release' : 'work'}, end to end.`, '', ...body].join('\n');
}

export function restructureVault(): Record<string, string> {
  return {
    'Engram/Use pnpm workspaces.md': '---\ntype: decision\ntags: [tooling]\n---\nWe use pnpm workspaces for the monorepo, not npm or yarn. The lockfile is pnpm-lock.yaml. Every package lists its own dependencies, and the root only holds the tools that all of them share.\n',
    'Engram/Prefer pnpm workspaces.md': '---\ntype: decision\ntags: [tooling]\n---\nWe use pnpm workspaces for the monorepo, not npm or yarn; the lockfile is pnpm-lock.yaml. Every package lists its own dependencies, and the root only holds the tools that all of them share.\n',
    'Engram/Retry with backoff.md': '---\ntype: pattern\ntags: [retries]\n---\nRetry failed uploads with exponential backoff and jitter, at most five times.\n',
    'Engram/Retry using backoff.md': '---\ntype: pattern\ntags: [retries]\n---\nRetry failed uploads with exponential backoff and jitter, five times at most.\n',
    'Engram/Release guide.md': guide(),
    // Past the pane's size guard (50,000 characters): its diff starts as a summary.
    'Engram/Handbook.md': guide(60_000, 'handbook', ['Hiring', 'Onboarding', 'Leaving']),
    'Notes/Index.md': 'Start with [[Prefer pnpm workspaces]], then [[Release guide#Build|the build]].\n',
    'Notes/Readme.md': 'Tooling: [[Prefer pnpm workspaces]].\n',
    'Notes/Todo.md': '- [ ] read [[Use pnpm workspaces]] again\n',
    'Notes/Cooking.md': '---\ntags: [cooking]\n---\nBread needs time.\n',
  };
}
