// The OS keychain's command line (sidecar/hosting/backends.ts keychainCommand): a secret kept with
// `saveKeychainSecret` is what `apiKey` reads back, through stand-ins for macOS `security` and Linux `secret-tool` on
// PATH that keep what they are given the way the real tools' arguments say. The real macOS keychain is not tested here
// (the suites run on Linux): the stand-in checks only that Engram calls `security` as its manual page says.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiKey, saveKeychainSecret } from '../../sidecar/hosting/backends.js';
import { makeTempDir, removeDir } from '../helpers/temp.js';

// `security add-generic-password -U -s S -a A -w W` / `security find-generic-password -s S -a A -w`, as macOS documents them.
const SECURITY = `#!/bin/sh
store="$KEYRING"
cmd="$1"; shift
while [ $# -gt 0 ]; do
  case "$1" in
    -s) service="$2"; shift 2;;
    -a) account="$2"; shift 2;;
    -w) if [ "$cmd" = add-generic-password ]; then password="$2"; shift 2; else shift; fi;;
    -U) shift;;
    *) echo "security: unknown option $1" >&2; exit 2;;
  esac
done
file="$store/$service.$account"
if [ "$cmd" = add-generic-password ]; then printf %s "$password" > "$file"; exit 0; fi
if [ "$cmd" = find-generic-password ] && [ -f "$file" ]; then cat "$file"; echo; exit 0; fi
echo "security: The specified item could not be found in the keychain." >&2; exit 44
`;
// `secret-tool store --label L service S key K` (secret on stdin) / `secret-tool lookup service S key K`.
const SECRET_TOOL = `#!/bin/sh
store="$KEYRING"
cmd="$1"; shift
[ "$1" = --label ] && shift 2
[ "$1" = service ] && [ "$3" = key ] || { echo "secret-tool: bad attributes" >&2; exit 2; }
file="$store/$2.$4"
if [ "$cmd" = store ]; then cat > "$file"; exit 0; fi
if [ "$cmd" = lookup ] && [ -f "$file" ]; then cat "$file"; exit 0; fi
exit 1
`;

describe('the OS keychain', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(removeDir));
  const setup = (): { env: NodeJS.ProcessEnv; keyring: string } => {
    const root = makeTempDir('engram-keychain-');
    dirs.push(root);
    const bin = path.join(root, 'bin');
    const keyring = path.join(root, 'keyring');
    fs.mkdirSync(bin);
    fs.mkdirSync(keyring);
    fs.writeFileSync(path.join(bin, 'security'), SECURITY, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'secret-tool'), SECRET_TOOL, { mode: 0o755 });
    return { env: { PATH: `${bin}:${process.env.PATH}`, KEYRING: keyring }, keyring };
  };

  it.each([
    ['darwin', 'the macOS keychain', 'engram.ENGRAM_TEAM_PASSWORD'],
    ['linux', 'the Secret Service keyring (secret-tool)', 'engram.ENGRAM_TEAM_PASSWORD'],
  ] as const)('on %s a kept secret is read back, and the environment comes first', (platform, where, entry) => {
    const { env, keyring } = setup();
    expect(apiKey('ENGRAM_TEAM_PASSWORD', env, platform)).toBeUndefined();
    expect(saveKeychainSecret('ENGRAM_TEAM_PASSWORD', 's3cret pw', env, platform)).toEqual({ ok: true, where });
    expect(fs.readFileSync(path.join(keyring, entry), 'utf8').trim()).toBe('s3cret pw');
    expect(apiKey('ENGRAM_TEAM_PASSWORD', env, platform)).toBe('s3cret pw');
    expect(apiKey('ENGRAM_TEAM_PASSWORD', { ...env, ENGRAM_TEAM_PASSWORD: 'from-env' }, platform)).toBe('from-env');
  });

  it('says why nothing was kept where there is no keychain tool', () => {
    expect(saveKeychainSecret('ENGRAM_TEAM_PASSWORD', 'x', { PATH: '/nonexistent' }, 'darwin')).toMatchObject({ ok: false, why: expect.stringMatching(/security is not available/) });
    expect(saveKeychainSecret('ENGRAM_TEAM_PASSWORD', 'x', {}, 'win32')).toEqual({ ok: false, why: 'no OS keychain Engram can use on win32' });
  });
});
