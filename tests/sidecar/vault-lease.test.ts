// One vault synced between machines: each machine's stable device id, and the lease in the vault that lets one
// device host it at a time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { thisDevice } from '../../sidecar/hosting/device.js';
import { describeUnseen, LEASE_TTL_MS, leaseFile, leaseStatus, readLease, recordDevice, releaseLease, takeLease, unseenDevices } from '../../sidecar/hosting/vault-lease.js';

const dirs: string[] = [];
const tmp = (name: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `engram-${name}-`));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the device id', () => {
  it('is made once per state folder and kept; two state folders on one machine are two devices', () => {
    const [homeA, homeB] = [tmp('home-a'), tmp('home-b')];
    const a = thisDevice(homeA);
    expect(thisDevice(homeA)).toEqual(a);
    expect(a.name).toBe(`${os.hostname().split('.')[0].replace(/[^A-Za-z0-9_-]/g, '-')}-${a.id.slice(0, 6)}`);
    const b = thisDevice(homeB);
    expect(b.id).not.toBe(a.id);
    expect(b.name).not.toBe(a.name);
    // A damaged file is replaced, not fatal.
    fs.writeFileSync(path.join(homeB, 'device.json'), '{not json');
    expect(thisDevice(homeB).id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a state folder that cannot be written still gives one stable id (never an error)', () => {
    const blocker = path.join(tmp('home-c'), 'a-file');
    fs.writeFileSync(blocker, '');
    const home = path.join(blocker, 'engram');
    const d = thisDevice(home);
    expect(d.id).toMatch(/^[0-9a-f]{32}$/);
    expect(thisDevice(home)).toEqual(d);
  });
});

describe('the vault lease', () => {
  it('lets one device host: the other is refused and told which device, takes over once the lease expires', () => {
    const vault = tmp('vault');
    const a = thisDevice(tmp('home-a'));
    const b = thisDevice(tmp('home-b'));
    const now = Date.parse('2026-03-10T12:00:00Z');
    const first = takeLease(vault, a, 'daemon', undefined, now);
    expect(first.ok).toBe(true);
    const refused = takeLease(vault, b, 'daemon', undefined, now + 1000);
    expect(refused).toMatchObject({ ok: false, holder: { device: a.name, deviceId: a.id, pid: process.pid } });
    expect(leaseStatus(vault, b, now + 1000)).toMatchObject({ held: 'elsewhere' });
    expect(leaseStatus(vault, b, now + 1000).text).toContain(`device ${a.name}`);
    expect(leaseStatus(vault, a, now + 1000)).toMatchObject({ held: 'here' });
    // The holder renews: still refused for the other long after the first lease would have ended.
    expect(takeLease(vault, a, 'daemon', undefined, now + LEASE_TTL_MS - 1000).ok).toBe(true);
    expect(takeLease(vault, b, 'daemon', undefined, now + LEASE_TTL_MS + 1000).ok).toBe(false);
    // The holder stops renewing (crashed, asleep): once expired the other device takes over.
    const later = now + 2 * LEASE_TTL_MS;
    expect(leaseStatus(vault, b, later)).toMatchObject({ held: 'expired' });
    expect(takeLease(vault, b, 'daemon', undefined, later)).toMatchObject({ ok: true, lease: { deviceId: b.id } });
    expect(takeLease(vault, a, 'daemon', undefined, later + 1000)).toMatchObject({ ok: false, holder: { deviceId: b.id } });
    // Released only by its holder.
    releaseLease(vault, a);
    expect(readLease(vault)?.deviceId).toBe(b.id);
    releaseLease(vault, b);
    expect(fs.existsSync(leaseFile(vault))).toBe(false);
    expect(leaseStatus(vault, a).held).toBe('none');
  });
});

describe('a sync that leaves .engram/ out (Obsidian Sync)', () => {
  it('a device whose change log arrived but whose record beside the lease did not is named; a carried record clears it', () => {
    const [vault, homeA, homeB] = [tmp('vault'), tmp('home-a'), tmp('home-b')];
    const [a, b] = [thisDevice(homeA), thisDevice(homeB)];
    const now = Date.parse('2026-03-10T12:00:00Z');
    const log = path.join(vault, 'Engram', 'Log');
    fs.mkdirSync(log, { recursive: true });
    // B's own log and a log from before device ids never count; neither does A's log from last year.
    fs.writeFileSync(path.join(log, `${b.name} 2026-03.md`), '# Engram log\n');
    fs.writeFileSync(path.join(log, 'oldlaptop 2026-03.md'), '# Engram log\n');
    fs.writeFileSync(path.join(log, `${a.name} 2025-03.md`), '# Engram log\n');
    expect(unseenDevices(vault, b, 'Engram/Log', now)).toEqual([]);
    // A's log of last month arrived by sync (Markdown: every tool carries it), its record in .engram/ did not.
    fs.writeFileSync(path.join(log, `${a.name} 2026-02.md`), '# Engram log\n');
    expect(unseenDevices(vault, b, 'Engram/Log', now)).toEqual([a.name]);
    expect(describeUnseen([a.name])).toContain(`device ${a.name} writes to this vault`);
    expect(describeUnseen([a.name])).toMatch(/Obsidian Sync/);
    // A sync that carries dot folders brings A's record too.
    recordDevice(vault, a, now);
    expect(unseenDevices(vault, b, 'Engram/Log', now)).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(vault, '.engram', 'devices', `${a.name}.json`), 'utf8'))).toMatchObject({ device: a.name, deviceId: a.id });
  });
});
