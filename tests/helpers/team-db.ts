// Real PostgreSQL for the team store's tests, over the wire protocol node-postgres speaks to any server:
// - PGlite (Postgres compiled to WASM, pgvector included) served on 127.0.0.1 by @electric-sql/pglite-socket, in this
//   process. One database session behind every connection: roles and row-level security cannot be told apart there.
// - Debian's PostgreSQL 15 (no pgvector in that distribution): a throwaway cluster made with initdb in a temp folder,
//   run as the `postgres` user when the tests run as root. Real logins, roles and row-level security; keyword search.
// Each returns a skip reason instead when it cannot start here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { onTeardown, killAll } from './leftovers.js';
import { makeTempDir, removeDir } from './temp.js';

export interface TeamDb {
  url: string;
  stop(): Promise<void>;
}

export async function startPglite(opts: { vectors?: boolean } = {}): Promise<TeamDb | { skip: string }> {
  let mods: [typeof import('@electric-sql/pglite'), typeof import('@electric-sql/pglite-pgvector'), typeof import('@electric-sql/pglite-socket')];
  try {
    mods = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-pgvector'), import('@electric-sql/pglite-socket')]);
  } catch (e) {
    return { skip: `PGlite is not installed (${(e as Error).message.split('\n')[0]})` };
  }
  const [{ PGlite }, { vector }, { PGLiteSocketServer }] = mods;
  const db = await PGlite.create(opts.vectors === false ? {} : { extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 8 });
  await server.start();
  const port = (server as unknown as { server: net.Server }).server.address() as net.AddressInfo;
  const stop = async (): Promise<void> => {
    await server.stop().catch(() => undefined);
    await db.close().catch(() => undefined);
  };
  const remove = onTeardown('a PGlite server', stop, () => undefined);
  return {
    url: `postgres://postgres@127.0.0.1:${port.port}/postgres`,
    async stop() {
      remove();
      await stop();
    },
  };
}

/** The folder of Debian's PostgreSQL binaries, or undefined. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).filter((v) => /^\d+$/.test(v) && Number(v) >= 15).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (fs.existsSync(path.join(root, v, 'bin', 'initdb'))) return path.join(root, v, 'bin');
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

/**
 * A PostgreSQL cluster of its own with password logins: the superuser `engram_admin` (password `admin-pw`). Members
 * are made by the test. Returns the admin URL without the password (it comes from the options, as a user's would).
 * `keep`: a folder the cluster lives in and stays in after stop (a bench reuses a large database between runs);
 * `reused` says whether it was there already.
 */
export interface PostgresDb extends TeamDb {
  adminPassword: string;
  port: number;
  /** Whether the kept folder held a cluster already. */
  reused: boolean;
  /** Kills the server as a crash would (an immediate shutdown: every session cut, no checkpoint). */
  crash(): Promise<void>;
  /** Starts it again on the same data and port (it recovers from its log, as after a crash). */
  restart(): Promise<void>;
}

export async function startPostgres(opts: { keep?: string } = {}): Promise<PostgresDb | { skip: string }> {
  const bin = postgresBin();
  if (!bin) return { skip: 'PostgreSQL ≥ 15 is not installed (Debian: apt-get install -y postgresql)' };
  const asRoot = process.getuid?.() === 0;
  if (asRoot && spawnSync('id', ['postgres']).status !== 0) return { skip: 'running as root and there is no postgres user to run the server as' };
  const dir = opts.keep ? path.resolve(opts.keep) : makeTempDir('engram-pg-');
  fs.mkdirSync(dir, { recursive: true });
  const data = path.join(dir, 'data');
  const reused = fs.existsSync(path.join(data, 'PG_VERSION'));
  const removeDirUnlessKept = (d: string): void => {
    if (!opts.keep) removeDir(d);
  };
  const pwfile = path.join(dir, 'pw');
  fs.writeFileSync(pwfile, 'admin-pw\n');
  const as = (cmd: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  if (asRoot) {
    // The postgres user must reach the folder: open the path to it for traversal, and give it the folder.
    for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
      const mode = fs.statSync(d).mode & 0o777;
      if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o711);
      if (d === '/tmp' || d === path.dirname(d)) break;
    }
    spawnSync('chown', ['-R', 'postgres', dir]);
  }
  const init = reused ? { status: 0, stderr: '', stdout: '' } : spawnSync(...as(path.join(bin, 'initdb'), ['-D', data, '-U', 'engram_admin', '--pwfile', pwfile, '-A', 'scram-sha-256', '--no-sync']), { encoding: 'utf8' });
  if (init.status !== 0) {
    removeDirUnlessKept(dir);
    return { skip: `initdb failed: ${(init.stderr || init.stdout).trim().split('\n').slice(-1)[0]}` };
  }
  const port = await freePort();
  let child: ChildProcess;
  let log = '';
  const launch = async (): Promise<boolean> => {
    log = '';
    const started = spawn(...as(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = started;
    started.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    started.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    return new Promise<boolean>((resolve) => {
      const end = Date.now() + 30_000;
      const poll = (): void => {
        if (/ready to accept connections/.test(log)) return resolve(true);
        if (started.exitCode !== null || Date.now() > end) return resolve(false);
        setTimeout(poll, 100);
      };
      poll();
    });
  };
  const ready = await launch();
  const exited = (c: ChildProcess): Promise<void> => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', () => r())));
  const stop = async (): Promise<void> => {
    if (child.pid && child.exitCode === null) {
      // runuser passes SIGTERM on; a smart shutdown of the server, then the group if anything is left.
      try {
        process.kill(child.pid, 'SIGINT');
      } catch {
        // gone
      }
      await new Promise<void>((r) => {
        const t = setTimeout(() => {
          killAll([child.pid!]);
          r();
        }, 10_000);
        child.once('exit', () => {
          clearTimeout(t);
          r();
        });
      });
    }
    removeDirUnlessKept(dir);
  };
  const remove = onTeardown('a PostgreSQL server', stop, () => {
    if (child.pid) killAll([child.pid]);
    removeDirUnlessKept(dir);
  });
  if (!ready) {
    remove();
    await stop();
    return { skip: `PostgreSQL did not start: ${log.trim().split('\n').slice(-1)[0]}` };
  }
  return {
    url: `postgres://engram_admin@127.0.0.1:${port}/postgres`,
    adminPassword: 'admin-pw',
    port,
    reused,
    async crash() {
      const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      await exited(child);
    },
    async restart() {
      if (!(await launch())) throw new Error(`PostgreSQL did not start again: ${log.trim().split('\n').slice(-1)[0]}`);
    },
    async stop() {
      remove();
      await stop();
    },
  };
}
