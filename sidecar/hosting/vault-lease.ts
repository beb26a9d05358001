// The vault's lease: which device hosts this vault right now, in a small file inside the vault
// (`.engram/host-lease.json`, a dot folder: never listed as a note, never shown by Obsidian, carried by folder sync
// tools such as Syncthing, Dropbox, iCloud Drive or git). host.lock (election.ts) elects one host per machine; the
// lease elects one machine per vault. A host takes the lease when it starts and renews it while it hosts; a host on
// another device that finds a lease not yet expired does not start, and says which device holds it. A lease whose
// device stopped renewing (it crashed, slept, or lost its network) expires and may be taken.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Device } from './device.js';

export const LEASE_FORMAT = 1;
export const LEASE_FILE = '.engram/host-lease.json';
/** One record per device that hosted the vault, beside the lease: it reaches another machine exactly when the lease does. */
export const DEVICES_DIR = '.engram/devices';
/** How long a lease holds without renewal. */
export const LEASE_TTL_MS = 90_000;
/** How often a host renews it. */
export const LEASE_RENEW_MS = 30_000;

export interface Lease {
  format: number;
  /** The device's name (host name and id digits) and full id. */
  device: string;
  deviceId: string;
  hostname: string;
  pid: number;
  host: 'daemon' | 'plugin';
  since: string;
  expires: string;
}

export function leaseFile(vault: string): string {
  return path.join(vault, ...LEASE_FILE.split('/'));
}

export function readLease(vault: string): Lease | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(leaseFile(vault), 'utf8')) as Lease;
    return typeof data.deviceId === 'string' && typeof data.expires === 'string' ? data : undefined;
  } catch {
    return undefined;
  }
}

/** The lease when another device holds it and it has not expired. */
export function heldElsewhere(lease: Lease | undefined, device: Device, now = Date.now()): Lease | undefined {
  return lease && lease.deviceId !== device.id && Date.parse(lease.expires) > now ? lease : undefined;
}

export function describeLease(lease: Lease, now = Date.now()): string {
  const left = Math.max(0, Math.round((Date.parse(lease.expires) - now) / 1000));
  return `device ${lease.device} (${lease.hostname}, ${lease.host} pid ${lease.pid}; lease renewed until ${lease.expires}, ${left} s from now)`;
}

export type LeaseResult = { ok: true; lease: Lease } | { ok: false; holder: Lease };

/**
 * Takes (or renews) the lease for this device, unless another device holds one that has not expired. The first lease
 * is created exclusively, so two hosts starting at once over one folder never both win.
 */
export function takeLease(vault: string, device: Device, host: 'daemon' | 'plugin', since?: string, now = Date.now()): LeaseResult {
  const file = leaseFile(vault);
  const lease: Lease = {
    format: LEASE_FORMAT,
    device: device.name,
    deviceId: device.id,
    hostname: os.hostname(),
    pid: process.pid,
    host,
    since: since ?? new Date(now).toISOString(),
    expires: new Date(now + LEASE_TTL_MS).toISOString(),
  };
  const text = `${JSON.stringify(lease)}\n`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, text, { flag: 'wx' });
    return { ok: true, lease };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const holder = heldElsewhere(readLease(vault), device, now);
  if (holder) return { ok: false, holder };
  // Ours, expired, or unreadable: replaced whole (a temporary file renamed over it), never seen half written.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
  return { ok: true, lease };
}

/** Records this device beside the lease (once; a host taking the lease calls it), for `unseenDevices` on other machines. */
export function recordDevice(vault: string, device: Device, now = Date.now()): void {
  const file = path.join(vault, ...DEVICES_DIR.split('/'), `${device.name}.json`);
  if (fs.existsSync(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ format: LEASE_FORMAT, device: device.name, deviceId: device.id, hostname: os.hostname(), since: new Date(now).toISOString() })}\n`);
}

/**
 * Devices that write to this vault but whose lease could never reach this machine: their change log (a Markdown note,
 * which every sync tool carries) arrived this month or last, but their record in `.engram/devices/` did not, so the
 * sync tool leaves the `.engram` dot folder out (Obsidian Sync does). Their host and this one cannot see each other's
 * lease. Logs named before device ids (no `-<6 hex digits>` in the name) are not counted.
 */
export function unseenDevices(vault: string, device: Device, logFolder: string, now = Date.now()): string[] {
  const months = [0, 1].map((back) => {
    const d = new Date(now);
    d.setDate(1);
    d.setMonth(d.getMonth() - back);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
  });
  let files: string[];
  try {
    files = fs.readdirSync(path.join(vault, ...logFolder.split('/').filter(Boolean)));
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const f of files) {
    const m = /^(.+-[0-9a-f]{6}) (\d{4}-\d{2})\.md$/.exec(f);
    if (!m || m[1] === device.name || !months.includes(m[2])) continue;
    if (!fs.existsSync(path.join(vault, ...DEVICES_DIR.split('/'), `${m[1]}.json`))) out.add(m[1]);
  }
  return [...out].sort();
}

/** What to tell the user about devices whose lease cannot reach this machine (empty when there are none). */
export function describeUnseen(names: string[]): string {
  if (!names.length) return '';
  return `device${names.length === 1 ? '' : 's'} ${names.join(', ')} ${names.length === 1 ? 'writes' : 'write'} to this vault (${names.length === 1 ? 'its' : 'their'} change log arrived by sync) but ${names.length === 1 ? 'its' : 'their'} lease in .engram/ never reached this machine: the sync tool leaves dot folders out (Obsidian Sync does), so hosts on both machines cannot see each other`;
}

/** Removes the lease when it is still this device's (a host stopping). */
export function releaseLease(vault: string, device: Device): void {
  const lease = readLease(vault);
  try {
    if (lease && lease.deviceId === device.id && lease.pid === process.pid) fs.rmSync(leaseFile(vault), { force: true });
  } catch {
    // A vault that became read-only: the lease expires by itself.
  }
}

/** Who hosts a vault, as `status` and `doctor` say it: this device, another (named), or nobody. */
export function leaseStatus(vault: string, device: Device, now = Date.now()): { held: 'here' | 'elsewhere' | 'expired' | 'none'; lease?: Lease; text: string } {
  const lease = readLease(vault);
  if (!lease) return { held: 'none', text: `no device holds this vault's lease (this device is ${device.name})` };
  if (lease.deviceId === device.id) return { held: 'here', lease, text: `this device (${device.name}) holds the vault's lease until ${lease.expires}` };
  if (heldElsewhere(lease, device, now)) return { held: 'elsewhere', lease, text: `${describeLease(lease, now)} hosts this vault; this device (${device.name}) does not host it until that lease expires` };
  return { held: 'expired', lease, text: `device ${lease.device} (${lease.hostname}) hosted this vault last; its lease expired at ${lease.expires}, so this device (${device.name}) may take over` };
}
