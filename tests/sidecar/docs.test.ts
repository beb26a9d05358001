// The README and the reference in docs/ stay usable: every relative link and image resolves (to a file, and to a
// heading when it names one), and docs/commands.md and each command's page say what `engram <command> --help` says
// (the one-line summary, --vault and --json, and every other option the command takes).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../sidecar/cli/commands.js';
import { repoRoot } from '../helpers/shared.js';

const docsDir = path.join(repoRoot, 'docs');
const pages = [path.join(repoRoot, 'README.md'), ...fs.readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => path.join(docsDir, f))];

/** The page's text without fenced code blocks and inline code (a link inside code is not a link). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1])));
}

/** Every relative link or image target in a page: [text](target) and ![alt](target). */
function targets(file: string): string[] {
  return [...prose(fs.readFileSync(file, 'utf8')).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('the README and docs/', () => {
  it('link only to files and headings that exist, and show only images that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of targets(page)) {
        const [file, anchor] = target.split('#');
        const resolved = file ? path.resolve(path.dirname(page), decodeURIComponent(file)) : page;
        const where = `${path.relative(repoRoot, page)}: ${target}`;
        if (!fs.existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('show the README pictures the docs:images script makes', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\((docs\/images\/[^)]+\.png)\)/g)].map((m) => m[1]);
    expect(images).toEqual(expect.arrayContaining(['docs/images/claude-code-session.png', 'docs/images/review.png', 'docs/images/restructure.png', 'docs/images/search.png', 'docs/images/related.png']));
    for (const image of images) {
      const bytes = fs.readFileSync(path.join(repoRoot, image));
      expect(bytes.subarray(1, 4).toString('latin1'), image).toBe('PNG');
    }
  });

  it('list every command with the summary its --help prints, and no command that does not exist', () => {
    const text = fs.readFileSync(path.join(docsDir, 'commands.md'), 'utf8');
    const rows = new Map([...text.matchAll(/^\| `engram ([a-z-]+)` \| (.+?) \| ([^|]+) \| \[/gm)].map((m) => [m[1], { summary: m[2].replace(/\\\|/g, '|'), takes: m[3] }]));
    expect([...rows.keys()].sort()).toEqual(commands.map((c) => c.name).sort());
    for (const c of commands) {
      expect(rows.get(c.name)?.summary, c.name).toBe(c.summary);
      // Which of --vault and --json it takes, as its help lists them (both when the entry says nothing).
      const takes = (c.globals ?? ['vault', 'json']).map((g) => `\`--${g}\``).join(' ') || '–';
      expect(rows.get(c.name)?.takes, c.name).toBe(takes);
    }
  });

  it("describe every option of each command (but --vault and --json, in the table) in that command's section", async () => {
    const text = fs.readFileSync(path.join(docsDir, 'commands.md'), 'utf8');
    const missing: string[] = [];
    for (const c of commands) {
      const link = new RegExp(`^\\| \`engram ${c.name}\` \\| .+? \\| [^|]+ \\| \\[[^\\]]*\\]\\(([^)]+)\\) \\|$`, 'm').exec(text)?.[1];
      expect(link, c.name).toBeTruthy();
      const [file, anchor] = link!.split('#');
      const page = fs.readFileSync(path.join(docsDir, file || 'commands.md'), 'utf8');
      // The section under the linked heading, to the next heading of the same or a higher level (the page without one).
      let section = page;
      if (anchor) {
        const lines = page.split('\n');
        const start = lines.findIndex((l) => /^#{1,6}\s/.test(l) && slug(l.replace(/^#+\s+/, '')) === anchor);
        expect(start, link).toBeGreaterThanOrEqual(0);
        const level = /^#+/.exec(lines[start])![0].length;
        const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}}\\s`).test(l));
        section = lines.slice(start, end < 0 ? undefined : end).join('\n');
      }
      const def = (await c.load()).command;
      const options = Object.keys(def.options ?? {});
      for (const o of options) if (!section.includes(`--${o}`)) missing.push(`engram ${c.name} --${o} (${link})`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the options the README and docs/ show', () => {
  /** Each `engram <command> …` the pages show, in inline code or in a code block, with the options it names. */
  function shown(): { where: string; command: string; options: string[] }[] {
    const out: { where: string; command: string; options: string[] }[] = [];
    for (const page of pages) {
      const text = fs.readFileSync(page, 'utf8');
      const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].flatMap((m) => m[1].split('\n'));
      const spans = [...text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
      for (const snippet of [...blocks, ...spans]) {
        // Each command in a pipeline or a list of commands: `engram a --x && engram b --y`.
        for (const part of snippet.split(/&&|\|\||;|\|/)) {
          const m = /(?:^|\s)engram\s+([a-z][a-z-]*)(?=\s|$)(.*)$/.exec(part.trim());
          if (!m || !commands.some((c) => c.name === m[1])) continue;
          const options = [...m[2].matchAll(/(?:^|[\s[])--([a-z][a-z0-9-]*)/g)].map((o) => o[1]);
          if (options.length) out.push({ where: path.relative(repoRoot, page), command: m[1], options });
        }
      }
    }
    return out;
  }

  it('name only options the command takes (an option a command dropped is not left in an example)', async () => {
    const takes = new Map<string, Set<string>>();
    for (const c of commands) {
      const def = (await c.load()).command;
      takes.set(c.name, new Set([...Object.keys(def.options ?? {}), ...(c.globals ?? ['vault', 'json']), 'help']));
    }
    const seen = shown();
    // The scan finds the examples (it would pass vacuously if it found none).
    expect(seen.length).toBeGreaterThan(20);
    const unknown = seen.flatMap((s) => s.options.filter((o) => !takes.get(s.command)!.has(o)).map((o) => `${s.where}: engram ${s.command} --${o}`));
    expect([...new Set(unknown)]).toEqual([]);
  });
});
