// The state layout of docs/files.md: home, vault key, per-vault folders, socket path.
import crypto from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engramHome, socketLocation, userState, vaultKey, vaultState, SOCKET_PATH_MAX_BYTES, type HostFacts } from '../../src/core/state.js';
import { isEngramError } from '../../src/core/errors.js';

const linux: HostFacts = { platform: 'linux', homeDir: '/home/ada', tmpDir: '/tmp', env: {}, uid: 1000, userName: 'ada' };
const win: HostFacts = { platform: 'win32', homeDir: 'C:\\Users\\Ada', tmpDir: 'C:\\Users\\Ada\\AppData\\Local\\Temp', env: {}, userName: 'Ada Lovelace' };

describe('engramHome', () => {
  it('defaults to ~/.engram', () => {
    expect(engramHome(linux)).toBe('/home/ada/.engram');
    expect(engramHome(win)).toBe('C:\\Users\\Ada\\.engram');
  });
  it('uses ENGRAM_HOME, expanding ~', () => {
    expect(engramHome({ ...linux, env: { ENGRAM_HOME: '/srv/engram/' } })).toBe('/srv/engram/');
    expect(engramHome({ ...linux, env: { ENGRAM_HOME: '~/state' } })).toBe('/home/ada/state');
    expect(engramHome({ ...linux, env: { ENGRAM_HOME: '' } })).toBe('/home/ada/.engram');
  });
  it('refuses a relative ENGRAM_HOME', () => {
    expect(() => engramHome({ ...linux, env: { ENGRAM_HOME: 'state' } })).toThrow(/absolute/);
  });
});

describe('vaultKey', () => {
  const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex').slice(0, 16);
  it('is the first 16 hex digits of sha256 of the real path', () => {
    expect(vaultKey('/home/ada/Vault', 'linux')).toBe(sha('/home/ada/Vault'));
    expect(vaultKey('/home/ada/Vault', 'linux')).toMatch(/^[0-9a-f]{16}$/);
  });
  it('is case-sensitive on Linux and case-folded on macOS and Windows', () => {
    expect(vaultKey('/home/ada/Vault', 'linux')).not.toBe(vaultKey('/home/ada/vault', 'linux'));
    expect(vaultKey('/Users/ada/Vault', 'darwin')).toBe(vaultKey('/Users/ada/vault', 'darwin'));
    expect(vaultKey('/Users/ada/Vault', 'darwin')).toBe(sha('/users/ada/vault'));
    expect(vaultKey('C:\\Users\\Ada\\Vault', 'win32')).toBe(vaultKey('c:/users/ada/vault', 'win32'));
  });
  it('treats NFC and NFD spellings as one vault on macOS', () => {
    expect(vaultKey('/Users/ada/Caf\u00e9', 'darwin')).toBe(vaultKey('/Users/ada/Cafe\u0301', 'darwin'));
  });
  it('ignores a trailing separator', () => {
    expect(vaultKey('/home/ada/Vault/', 'linux')).toBe(vaultKey('/home/ada/Vault', 'linux'));
    expect(vaultKey('C:\\Vault\\', 'win32')).toBe(vaultKey('C:\\Vault', 'win32'));
  });
});

describe('state folders', () => {
  it('lays out the per-user files', () => {
    const u = userState('/home/ada/.engram', 'linux');
    expect(u).toEqual({
      home: '/home/ada/.engram',
      configFile: '/home/ada/.engram/config.json',
      tokenFile: '/home/ada/.engram/token',
      logsDir: '/home/ada/.engram/logs',
      binDir: '/home/ada/.engram/bin',
      shim: '/home/ada/.engram/bin/engram',
      vaultsDir: '/home/ada/.engram/vaults',
    });
    expect(userState('C:\\Users\\Ada\\.engram', 'win32').shim).toBe('C:\\Users\\Ada\\.engram\\bin\\engram.cmd');
  });
  it('lays out the per-vault files', () => {
    const key = vaultKey('/v', 'linux');
    const v = vaultState('/h', key, 'linux');
    expect(v.dir).toBe(`/h/vaults/${key}`);
    expect([v.snapshot, v.ledger, v.spool, v.claimed, v.jobs, v.proposals, v.lock].map((p) => path.posix.basename(p))).toEqual([
      'snapshot', 'ledger.json', 'spool', 'claimed', 'jobs', 'proposals', 'host.lock',
    ]);
    expect(vaultState('C:\\h', key, 'win32').ledger).toBe(`C:\\h\\vaults\\${key}\\ledger.json`);
  });
  it('refuses a key that is not 16 hex digits (it becomes a folder name)', () => {
    expect(() => vaultState('/h', '../../etc', 'linux')).toThrow(/not a vault key/);
  });
});

describe('socketLocation', () => {
  const key = '0123456789abcdef';
  it('prefers $XDG_RUNTIME_DIR/engram', () => {
    expect(socketLocation({ ...linux, env: { XDG_RUNTIME_DIR: '/run/user/1000' } }, key)).toEqual({
      path: `/run/user/1000/engram/${key}.sock`,
      dir: '/run/user/1000/engram',
    });
  });
  it('falls back to <tmpdir>/engram-<uid>', () => {
    expect(socketLocation({ ...linux, tmpDir: '/var/folders/xy/T' }, key).path).toBe(`/var/folders/xy/T/engram-1000/${key}.sock`);
  });
  it('keeps the path under 100 bytes, falling back to /tmp', () => {
    const long = `/${'x'.repeat(90)}`;
    const loc = socketLocation({ ...linux, tmpDir: long, env: { XDG_RUNTIME_DIR: long } }, key);
    expect(loc.path).toBe(`/tmp/engram-1000/${key}.sock`);
    expect(Buffer.byteLength(loc.path)).toBeLessThan(SOCKET_PATH_MAX_BYTES);
  });
  it('uses a named pipe on Windows with a safe user name', () => {
    const loc = socketLocation(win, key);
    expect(loc.path).toBe(`\\\\.\\pipe\\engram-Ada_Lovelace-${key}`);
    expect(loc.dir).toBeUndefined();
  });
  it('errors are typed', () => {
    try {
      engramHome({ ...linux, env: { ENGRAM_HOME: 'rel' } });
    } catch (e) {
      expect(isEngramError(e, 'invalid-config')).toBe(true);
    }
  });
});
