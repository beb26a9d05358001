// A small vault for curation tests: a merge cluster, a larger cluster (hub), an oversized note, a locked
// look-alike, working-memory notes, and a note linking to all of them in every link form.
import { MemoryVault } from '../../../src/core/ports/memory-vault';
import type { NoteVectors } from '../../../src/core/curate/merge-candidates';
import { curateSettings } from '../../../src/core/curate/settings';
import { rng } from '../../../src/core/rng';

export const DAY = 86_400_000;
export const NOW = Date.parse('2026-03-10T12:00:00Z');

export function unit(seed: number, dim = 32, base?: Float32Array, noise = 0.05): Float32Array {
  const next = rng(seed);
  // Centred on zero: components in [-0.5, 0.5).
  const r = () => next() - 0.5;
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = base ? base[i] + noise * r() : r();
  let n = 0;
  for (const x of v) n += x * x;
  for (let i = 0; i < dim; i++) v[i] /= Math.sqrt(n);
  return v;
}

export class MapVectors implements NoteVectors {
  constructor(readonly map: Map<string, Float32Array>) {}
  vector(path: string): Float32Array | undefined {
    return this.map.get(path);
  }
}

const bigSection = (name: string, extra: string) => `# ${name}\n\n${`Text about ${name.toLowerCase()} that goes on. `.repeat(12)}\n${extra}\n`;

export const BIG = `---
tags: [guide]
aliases: [The big one]
# a comment the hub keeps
---
Opening words of the guide, see [[#Usage]].

${bigSection('Setup', '## Linux\n\nInstall it on Linux.\n')}
${bigSection('Usage', 'A paragraph worth citing. ^cite1\n')}
${bigSection('Troubleshooting', 'See [[#Setup]] again.\n')}
# See also

- [[Index]] and [[#Usage]]
`;

export function buildVault(): { vault: MemoryVault; vectors: MapVectors } {
  const files: Record<string, string> = {
    'Notes/Use pnpm.md': '---\ntags: [tooling]\nsummary: Use pnpm for installs.\n---\nWe use pnpm, not npm. ^why\n\n## Details\n\nLockfile is pnpm-lock.yaml.\n',
    'Notes/Prefer pnpm.md': '---\ntags: [tooling, node]\n---\nPrefer pnpm over npm in this repo.\n',
    'Notes/pnpm only.md': '---\ntags: [tooling]\nrelated: ["[[Use pnpm]]"]\n---\nOnly pnpm: npm breaks the workspace.\n',
    'Notes/Locked pnpm.md': '---\ntags: [tooling]\nlocked: true\n---\nLocked note that says the same: use pnpm. See [[Prefer pnpm]].\n',
    'Notes/Big guide.md': BIG,
    'Notes/Index.md': [
      '---',
      'related: ["[[Prefer pnpm]]", "[[Big guide#Usage]]"]',
      '---',
      'Links: [[Prefer pnpm]], [[prefer pnpm|pref]], [[Prefer pnpm#Intro]], ![[pnpm only]], [[pnpm only#^blk|blk]],',
      '[[Notes/Prefer pnpm|by path]], [md](Prefer%20pnpm.md), | [[pnpm only\\|table]] |,',
      '[[Big guide]], [[Big guide#Setup]], [[Big guide#Setup#Linux|linux]], [[Big guide#^cite1]], ![[Big guide#Troubleshooting]],',
      '[[Locked pnpm]].',
      '',
    ].join('\n'),
    'Notes/Broken.md': '---\ntags: [a\n---\nInvalid YAML links to [[Prefer pnpm]].\n',
    'Other/Readme.md': 'Start with [[Use pnpm]] and [[Use pnpm#Details|the details]].\n',
    'Other/Todo.md': '- [ ] read [[Use pnpm]]\n',
    'Other/Unrelated.md': '---\ntags: [cooking]\n---\nBread needs time.\n',
  };
  for (let i = 1; i <= 6; i++) files[`Cluster/Retry ${i}.md`] = `---\ntags: [retries]\nsummary: Retry note ${i}.\n---\nRetry with backoff, variant ${i}.\n`;
  const vault = new MemoryVault({ files, clock: { now: () => NOW } });
  const pnpm = unit(1);
  const retry = unit(2);
  const vectors = new Map<string, Float32Array>([
    ['Notes/Use pnpm.md', unit(11, 32, pnpm)],
    ['Notes/Prefer pnpm.md', unit(12, 32, pnpm)],
    ['Notes/pnpm only.md', unit(13, 32, pnpm)],
    ['Notes/Locked pnpm.md', unit(14, 32, pnpm)],
    ['Notes/Big guide.md', unit(5)],
    ['Notes/Index.md', unit(6)],
    ['Other/Unrelated.md', unit(7, 32, pnpm)], // close in meaning but shares nothing: never a candidate
  ]);
  for (let i = 1; i <= 6; i++) vectors.set(`Cluster/Retry ${i}.md`, unit(20 + i, 32, retry));
  return { vault, vectors: new MapVectors(vectors) };
}

export const settings = curateSettings({ device: 'test box', actor: 'test', splitMinChars: 600, mergeThreshold: 0.9 });
