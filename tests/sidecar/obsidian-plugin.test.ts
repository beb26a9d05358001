// `engram setup`'s Obsidian plugin step and `engram uninstall` taking it out again, in process over real temp
// folders: the built files land in <vault>/.obsidian/plugins/engram, community-plugins.json gains exactly one entry
// (every other byte kept), and uninstall leaves the vault as it found it apart from the user's plugin settings.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeDir } from '../helpers/temp.js';
import { hostFacts } from '../../sidecar/hosting/facts.js';
import type { CommandContext } from '../../sidecar/cli/types.js';
import { command as uninstallCommand } from '../../sidecar/cli/commands/uninstall.js';
import { choosePlugin, installPlugin, pluginStep, type PluginChoice } from '../../sidecar/install/obsidian-plugin.js';
import { isEngramError } from '../../src/core/errors.js';
import { configFileOf, configOf } from '../helpers/config-reader.js';

describe('the Obsidian plugin in a vault', () => {
  let root: string;
  let vault: string;
  let source: string;
  let env: NodeJS.ProcessEnv;
  let asked: string[];
  const obsidian = () => path.join(vault, '.obsidian');
  const list = () => path.join(obsidian(), 'community-plugins.json');
  const pluginFolder = () => path.join(obsidian(), 'plugins', 'engram');
  const build = (main: string) => {
    fs.writeFileSync(path.join(source, 'main.js'), main);
    fs.writeFileSync(path.join(source, 'manifest.json'), '{\n  "id": "engram",\n  "version": "0.1.0"\n}\n');
    fs.writeFileSync(path.join(source, 'styles.css'), '.engram-status { color: var(--text-muted); }\n');
  };
  /** What the user has in their vault: another plugin, its folder, and an enabled-plugins list in Obsidian's format. */
  const otherPlugins = (text = '[\n  "dataview",\n  "templater-obsidian"\n]') => {
    fs.mkdirSync(path.join(obsidian(), 'plugins', 'dataview'), { recursive: true });
    fs.writeFileSync(path.join(obsidian(), 'plugins', 'dataview', 'main.js'), 'dataview');
    fs.writeFileSync(path.join(obsidian(), 'plugins', 'dataview', 'data.json'), '{"x":1}');
    fs.writeFileSync(list(), text);
  };
  const question = (over: Partial<Parameters<typeof choosePlugin>[0]> = {}) => ({
    vault,
    env,
    yes: false,
    skip: false,
    interactive: false,
    ask: async (q: string) => {
      asked.push(q);
      return 'y';
    },
    ...over,
  });
  const run = (choice: PluginChoice, open = false) => pluginStep(choice, { vault, source: () => source, env, obsidianOpen: () => open });
  const snapshot = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {};
    if (!fs.existsSync(dir)) return out;
    for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
      const file = path.join(dir, name);
      out[name] = fs.statSync(file).isDirectory() ? '<dir>' : fs.readFileSync(file, 'utf8');
    }
    return out;
  };
  const uninstall = async (options: CommandContext['options'] = {}) => {
    const out: string[] = [];
    const code = await uninstallCommand.run({
      args: [],
      options,
      global: { json: false },
      env,
      facts: hostFacts(env),
      configFile: configFileOf(env),
      config: configOf(env),
      cwd: root,
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      isTTY: false,
      readStdin: async () => '',
    });
    return { code, out: out.join('\n') };
  };

  beforeEach(() => {
    root = fs.realpathSync(makeTempDir('engram-obsidian-plugin-'));
    vault = path.join(root, 'vault');
    source = path.join(root, 'checkout');
    fs.mkdirSync(vault);
    fs.mkdirSync(source);
    fs.writeFileSync(path.join(vault, 'Note.md'), '# A note\n');
    build('/* built plugin v1 */');
    env = { ...process.env, HOME: path.join(root, 'home'), ENGRAM_HOME: path.join(root, 'engram-home') };
    delete env.CLAUDE_CONFIG_DIR;
    delete env.XDG_CONFIG_HOME;
    asked = [];
  });
  afterEach(() => removeDir(root));

  it('installs into a vault without .obsidian: the three built files, turned on, and says how Obsidian picks it up', async () => {
    const step = run(await choosePlugin(question({ yes: true })));
    expect(step.status).toBe('installed');
    expect(asked).toEqual([]);
    for (const f of ['main.js', 'manifest.json', 'styles.css']) {
      expect(fs.readFileSync(path.join(pluginFolder(), f), 'utf8')).toBe(fs.readFileSync(path.join(source, f), 'utf8'));
    }
    expect(fs.readFileSync(list(), 'utf8')).toBe('[\n  "engram"\n]');
    expect(step.lines[0]).toBe(`main.js added, manifest.json added, styles.css added in ${pluginFolder()}`);
    expect(step.lines.join('\n')).toContain('Settings → Community plugins');
    expect(step.lines.join('\n')).not.toContain('has this vault open now');
    const record = JSON.parse(fs.readFileSync(path.join(env.ENGRAM_HOME!, 'install.json'), 'utf8'));
    expect(Object.keys(record.obsidianPlugins)).toEqual([vault]);
    // Obsidian running with the vault open: a warning, not a failure.
    const again = run({ install: true, enable: true }, true);
    expect(again.status).toBe('installed');
    expect(again.lines.join('\n')).toContain('Obsidian has this vault open now');
  });

  it('keeps every other plugin and the list\'s own layout, adding one entry', async () => {
    otherPlugins();
    const others = snapshot(path.join(obsidian(), 'plugins', 'dataview'));
    expect(run(await choosePlugin(question({ yes: true }))).status).toBe('installed');
    expect(fs.readFileSync(list(), 'utf8')).toBe('[\n  "dataview",\n  "templater-obsidian",\n  "engram"\n]');
    expect(snapshot(path.join(obsidian(), 'plugins', 'dataview'))).toEqual(others);

    // A list written on one line stays on one line; an empty one gets Obsidian's layout.
    fs.writeFileSync(list(), '["dataview","calendar"]\n');
    run({ install: true, enable: true });
    expect(fs.readFileSync(list(), 'utf8')).toBe('["dataview","calendar","engram"]\n');
    fs.writeFileSync(list(), '[]');
    run({ install: true, enable: true });
    expect(fs.readFileSync(list(), 'utf8')).toBe('[\n  "engram"\n]');
  });

  it('refuses an invalid community-plugins.json with a clear error and changes nothing', async () => {
    fs.mkdirSync(obsidian());
    fs.writeFileSync(list(), '[\n  "dataview",\n');
    const before = snapshot(obsidian());
    const step = run(await choosePlugin(question({ yes: true })));
    expect(step.status).toBe('failed');
    expect(step.lines[0]).toContain(`${list()} is not valid JSON`);
    expect(step.lines[0]).toContain('fix the file by hand');
    expect(snapshot(obsidian())).toEqual(before);
    expect(fs.existsSync(path.join(env.ENGRAM_HOME!, 'install.json'))).toBe(false);
    // A JSON value that is not a list is refused the same way.
    fs.writeFileSync(list(), '{"dataview": true}');
    const e = (() => {
      try {
        installPlugin({ vault, source, env, enable: true });
      } catch (x) {
        return x;
      }
    })();
    expect(isEngramError(e, 'invalid-config')).toBe(true);
    expect(fs.existsSync(pluginFolder())).toBe(false);
  });

  it('says what to build when the checkout has no built plugin, and writes nothing', async () => {
    fs.rmSync(path.join(source, 'main.js'));
    const step = run(await choosePlugin(question({ yes: true })));
    expect(step.status).toBe('failed');
    expect(step.lines[0]).toContain('no main.js');
    expect(step.lines[0]).toContain('npm run build');
    expect(fs.existsSync(obsidian())).toBe(false);
  });

  it('refuses a development build (`npm run dev`, source map inlined) and says how to build, writing nothing', async () => {
    build(`"use strict";\nmodule.exports = {};\n//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==\n`);
    const step = run(await choosePlugin(question({ yes: true })));
    expect(step.status).toBe('failed');
    expect(step.lines[0]).toContain('development build');
    expect(step.lines[0]).toContain('npm run build');
    expect(fs.existsSync(obsidian())).toBe(false);
  });

  it('running setup again is idempotent, and brings changed files up to date', async () => {
    otherPlugins();
    run(await choosePlugin(question({ yes: true })));
    const listAfter = fs.readFileSync(list(), 'utf8');
    const second = run(await choosePlugin(question({ yes: true })));
    expect(second.install?.files).toEqual({ 'main.js': 'unchanged', 'manifest.json': 'unchanged', 'styles.css': 'unchanged' });
    expect(second.install?.enabled).toBe('unchanged');
    expect(fs.readFileSync(list(), 'utf8')).toBe(listAfter);

    build('/* built plugin v2 */');
    const third = run(await choosePlugin(question({ yes: true })));
    expect(third.install?.files['main.js']).toBe('updated');
    expect(fs.readFileSync(path.join(pluginFolder(), 'main.js'), 'utf8')).toBe('/* built plugin v2 */');

    // Turned off in Obsidian, then setup again without --yes and no terminal: files refreshed, still off, not asked.
    fs.writeFileSync(list(), '[\n  "dataview",\n  "templater-obsidian"\n]');
    build('/* built plugin v3 */');
    const fourth = run(await choosePlugin(question()));
    expect(asked).toEqual([]);
    expect(fourth.install?.enabled).toBe('left as is');
    expect(fs.readFileSync(path.join(pluginFolder(), 'main.js'), 'utf8')).toBe('/* built plugin v3 */');
    expect(fs.readFileSync(list(), 'utf8')).toBe('[\n  "dataview",\n  "templater-obsidian"\n]');
  });

  it('--yes installs without asking; with no terminal and no --yes it installs nothing and says how', async () => {
    const none = await choosePlugin(question());
    expect(none).toMatchObject({ install: false, status: 'no terminal' });
    const step = run(none);
    expect(step.lines[0]).toContain(`engram setup --vault '${vault}' --yes`);
    expect(fs.existsSync(obsidian())).toBe(false);
    expect(asked).toEqual([]);

    expect(await choosePlugin(question({ yes: true, skip: true }))).toMatchObject({ install: false, status: 'skipped' });
    expect(await choosePlugin(question({ interactive: true, ask: async (q) => (asked.push(q), '') }))).toMatchObject({ install: false, status: 'declined' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/\[y\/N\] $/);
    expect(fs.existsSync(obsidian())).toBe(false);

    expect(await choosePlugin(question({ interactive: true }))).toEqual({ install: true, enable: true });
    expect(await choosePlugin(question({ yes: true }))).toEqual({ install: true, enable: true });
    expect(asked).toHaveLength(2);
  });

  it('uninstall removes exactly what setup added: other plugins, their entries and the list\'s bytes stay', async () => {
    // Not Obsidian's own layout (four spaces, a final newline): byte for byte means these survive too.
    const original = '[\n    "dataview",\n    "templater-obsidian"\n]\n';
    otherPlugins(original);
    const before = snapshot(obsidian());
    run(await choosePlugin(question({ yes: true })));
    // The plugin has run and stored the user's settings.
    fs.writeFileSync(path.join(pluginFolder(), 'data.json'), '{"engramHome":"/x"}');

    const dry = await uninstall({ 'dry-run': true });
    expect(dry.out).toContain('would remove');
    expect(fs.existsSync(path.join(pluginFolder(), 'main.js'))).toBe(true);

    const r = await uninstall();
    expect(r.code).toBe(0);
    expect(fs.readFileSync(list(), 'utf8')).toBe(original);
    expect(snapshot(obsidian())).toEqual({ ...before, 'plugins/engram': '<dir>', 'plugins/engram/data.json': '{"engramHome":"/x"}' });
    const inVault = (...parts: string[]) => path.join('.obsidian', ...parts);
    const files = ['main.js', 'manifest.json', 'styles.css'].map((f) => inVault('plugins', 'engram', f)).join(', ');
    expect(r.out).toContain(`Obsidian plugin in ${vault}: removed: ${files}, the engram entry in ${inVault('community-plugins.json')}\n`);
    expect(r.out).toContain(`kept ${path.join(pluginFolder(), 'data.json')} (your plugin settings`);

    // Nothing left in the record: a second uninstall has nothing to do.
    expect((await uninstall()).out).not.toContain('Obsidian plugin');
  });

  it('uninstall leaves a vault that had no .obsidian without one, and an entry first in the list comes out cleanly', async () => {
    run(await choosePlugin(question({ yes: true })));
    await uninstall();
    expect(fs.existsSync(obsidian())).toBe(false);
    expect(fs.readdirSync(vault)).toEqual(['Note.md']);

    otherPlugins('["engram", "dataview"]');
    run({ install: true, enable: true });
    await uninstall();
    expect(fs.readFileSync(list(), 'utf8')).toBe('["dataview"]');
    expect(fs.existsSync(pluginFolder())).toBe(false);
    expect(fs.existsSync(path.join(obsidian(), 'plugins', 'dataview', 'main.js'))).toBe(true);
  });

  it('uninstall keeps a plugin updated since setup, refuses an invalid list, and leaves the plugin to --agent', async () => {
    otherPlugins();
    run(await choosePlugin(question({ yes: true })));
    // --agent names one registration: the plugin stays.
    expect((await uninstall({ agent: 'codex' })).out).not.toContain('Obsidian plugin');
    expect(fs.existsSync(path.join(pluginFolder(), 'main.js'))).toBe(true);

    fs.writeFileSync(list(), '[oops');
    const refused = await uninstall();
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('is not valid JSON');
    expect(fs.readFileSync(list(), 'utf8')).toBe('[oops');
    expect(fs.existsSync(path.join(pluginFolder(), 'main.js'))).toBe(true);

    fs.writeFileSync(list(), '["dataview","engram"]');
    fs.writeFileSync(path.join(pluginFolder(), 'main.js'), '/* from the community store */');
    const kept = await uninstall();
    expect(kept.code).toBe(0);
    expect(kept.out).toContain('main.js changed since `engram setup` installed it');
    expect(fs.readFileSync(path.join(pluginFolder(), 'main.js'), 'utf8')).toBe('/* from the community store */');
    expect(fs.readFileSync(list(), 'utf8')).toBe('["dataview","engram"]');
  });
});
