// The built main.js must load in a bare CommonJS sandbox that offers only 'obsidian':
// a plugin that requires Node built-ins or onnxruntime at load time would break Obsidian (and mobile review).
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { repoRoot } from '../helpers/shared.js';

class StubPlugin {
  data: unknown = null;
  statusText = '';
  classes: string[] = [];
  loadData(): Promise<unknown> {
    return Promise.resolve(this.data);
  }
  addStatusBarItem() {
    return {
      addClass: (c: string) => this.classes.push(c),
      setText: (t: string) => {
        this.statusText = t;
      },
    };
  }
}

function loadBundle(): { default: new () => StubPlugin & { onload(): Promise<void>; settings: Record<string, unknown> } } {
  const code = fs.readFileSync(path.join(repoRoot, 'main.js'), 'utf8');
  const requested: string[] = [];
  const module = { exports: {} as Record<string, unknown> };
  const sandboxRequire = (name: string) => {
    requested.push(name);
    if (name === 'obsidian') return { Plugin: StubPlugin };
    throw new Error(`main.js required "${name}" at load time`);
  };
  vm.runInNewContext(code, { module, exports: module.exports, require: sandboxRequire, console });
  expect(requested.filter((r) => r !== 'obsidian')).toEqual([]);
  return module.exports as never;
}

describe('plugin bundle', () => {
  it('loads with only obsidian available and starts with default settings', async () => {
    const Plugin = loadBundle().default;
    const plugin = new Plugin();
    await plugin.onload();
    expect(plugin.statusText).toBe('Engram');
    expect(plugin.classes).toContain('engram-status');
    expect(plugin.settings).toEqual({ engramHome: '' });
  });

  it('keeps saved settings over the defaults', async () => {
    const Plugin = loadBundle().default;
    const plugin = new Plugin();
    plugin.data = { engramHome: '/home/me/.engram' };
    await plugin.onload();
    expect(plugin.settings.engramHome).toBe('/home/me/.engram');
  });

  it('has a manifest the community directory accepts', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.id).toBe('engram');
    expect(manifest.isDesktopOnly).toBe(true);
    const description = String(manifest.description);
    expect(description.length).toBeLessThanOrEqual(250);
    expect(description.endsWith('.')).toBe(true);
    const versions = JSON.parse(fs.readFileSync(path.join(repoRoot, 'versions.json'), 'utf8')) as Record<string, string>;
    expect(versions[String(manifest.version)]).toBe(manifest.minAppVersion);
  });
});
