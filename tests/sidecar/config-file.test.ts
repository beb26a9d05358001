// config.json read by every host and client: a hand edit that breaks it names the file and line, and everything keeps
// running on the last good configuration (reported); an invalid value falls back on its last good value.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastGoodPath, liveConfig, loadConfig, readOnce, saveConfigKey } from '../../sidecar/hosting/config-file.js';
import { clientSettings } from '../../sidecar/hosting/settings.js';
import { hostFacts } from '../../sidecar/hosting/facts.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

describe('config.json: the last good configuration', () => {
  let home: string;
  let file: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = makeTempDir('engram-config-');
    file = path.join(home, 'config.json');
    env = { ENGRAM_HOME: home, HOME: home };
  });
  afterEach(() => removeDir(home));

  it('a broken file is named with its line, and the last good one is used meanwhile', () => {
    fs.writeFileSync(file, JSON.stringify({ version: 1, backend: 'rules', recall: { prompt_items: 3 }, hooks: { inject: false } }, null, 2));
    expect(loadConfig(hostFacts(env)).config.get('backend')).toBe('rules');
    expect(fs.existsSync(lastGoodPath(file))).toBe(true);

    // A hand edit drops a comma on line 3.
    fs.writeFileSync(file, '{\n  "version": 1,\n  "backend": "rules"\n  "recall": { "prompt_items": 4 }\n}\n');
    const loaded = loadConfig(hostFacts(env));
    expect(loaded.broken).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:3 is not valid JSON`));
    expect(loaded.broken).toContain(`using the last good configuration (${lastGoodPath(file)}`);
    expect(loaded.config.problems[0]).toBe(loaded.broken);
    expect(loaded.config.get('backend')).toBe('rules');
    expect(loaded.config.get('recall.prompt_items')).toBe(3);
    // The hooks read the same: injection stays off as the user set it.
    expect(clientSettings(() => loadConfig(hostFacts(env)).config, env).inject).toBe(false);
    // The broken text never replaces the good copy.
    expect(JSON.parse(fs.readFileSync(lastGoodPath(file), 'utf8'))).toMatchObject({ backend: 'rules' });

    // Fixed: the new file is used, and becomes the last good copy.
    fs.writeFileSync(file, JSON.stringify({ version: 1, backend: 'rules', recall: { prompt_items: 4 } }));
    const fixed = loadConfig(hostFacts(env));
    expect(fixed.broken).toBeUndefined();
    expect(fixed.config.get('recall.prompt_items')).toBe(4);
    expect(JSON.parse(fs.readFileSync(lastGoodPath(file), 'utf8'))).toMatchObject({ recall: { prompt_items: 4 } });
  });

  it('a broken file with no good copy before it is refused, naming the line', () => {
    fs.writeFileSync(file, '{ "version": 1,\n  "backend": ');
    expect(() => loadConfig(hostFacts(env))).toThrow(/config\.json:2 is not valid JSON: Unexpected end of JSON input/);
    // The hooks never fail on it: they run as with no config.json at all meanwhile.
    const none = { ...env, ENGRAM_HOME: path.join(home, 'none') };
    expect(clientSettings(() => loadConfig(hostFacts(env)).config, env)).toEqual(clientSettings(() => loadConfig(hostFacts(none)).config, none));
  });

  it("the hook's reader reads config.json once a process, and gives a broken file's error each time it is asked", () => {
    fs.writeFileSync(file, JSON.stringify({ version: 1, recall: { prompt_items: 6 } }));
    let reads = 0;
    const read = readOnce(() => {
      reads++;
      return loadConfig(hostFacts(env)).config;
    });
    expect(read().get('recall.prompt_items')).toBe(6);
    expect(clientSettings(read, env).prompt_max_items).toBe(6);
    expect(reads).toBe(1);

    fs.writeFileSync(file, '{ "version": 1,\n  "backend": ');
    fs.rmSync(lastGoodPath(file));
    let failed = 0;
    const broken = readOnce(() => {
      failed++;
      return loadConfig(hostFacts(env)).config;
    });
    expect(() => broken()).toThrow(/config\.json:2 is not valid JSON/);
    expect(() => broken()).toThrow(/config\.json:2 is not valid JSON/);
    expect(failed).toBe(1);
  });

  it('an invalid value falls back on its last good value, not the default, and says which', () => {
    fs.writeFileSync(file, JSON.stringify({ version: 1, recall: { prompt_items: 9 } }));
    loadConfig(hostFacts(env));
    fs.writeFileSync(file, JSON.stringify({ version: 1, recall: { prompt_items: 'nine' } }));
    const loaded = loadConfig(hostFacts(env));
    expect(loaded.config.get('recall.prompt_items')).toBe(9);
    expect(loaded.config.problems).toEqual(['config.json: recall.prompt_items should be a whole number from 0 to 50, found "nine"; using 9 (its last good value)']);
    // A file with a problem is never kept as the last good one.
    expect(JSON.parse(fs.readFileSync(lastGoodPath(file), 'utf8'))).toMatchObject({ recall: { prompt_items: 9 } });
  });

  it("a host's live reader sees an edit at once and reads an unchanged file once", async () => {
    const read = liveConfig(hostFacts(env));
    expect(read().get('recall.read_only')).toBe(false);
    const first = read();
    expect(read()).toBe(first);
    await saveConfigKey(hostFacts(env), 'recall.read_only', true);
    expect(read().get('recall.read_only')).toBe(true);
    // A hand edit in place (same inode) is seen too.
    fs.writeFileSync(file, JSON.stringify({ version: 1, recall: { read_only: false }, backend: 'rules' }, null, 2));
    expect(read().get('backend')).toBe('rules');
    expect(read().get('recall.read_only')).toBe(false);
  });
});
