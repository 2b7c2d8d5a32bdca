/**
 * Starts private redis-server processes on free ports for tests that kill,
 * slow or flush Redis (never the machine's shared one), including a small
 * Redis Cluster. Every process is killed when the test run ends.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function redisServerAvailable(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Thrown when the process ended before it answered (e.g. its port, or a cluster node's bus port, was taken). */
export class RedisExitedError extends Error {}

async function waitForPing(port: number, exited: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited())
      throw new RedisExitedError(`redis-server on port ${port} exited before answering PING`);
    try {
      const out = execFileSync('redis-cli', ['-p', String(port), 'ping'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      if (out.trim() === 'PONG') return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline)
      throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class RedisProcess {
  private proc: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'rampart-redis-'));

  constructor(
    readonly port: number,
    private readonly extraArgs: string[] = [],
    /** A Sentinel: the configuration file it runs from (Sentinel rewrites it). */
    private readonly sentinelConf?: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.proc = spawn(
      'redis-server',
      this.sentinelConf
        ? [this.sentinelConf, '--sentinel']
        : [
            '--port',
            String(this.port),
            '--bind',
            '127.0.0.1',
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            this.dir,
            ...this.extraArgs,
          ],
      { stdio: 'ignore' },
    );
    this.proc.unref();
    processes.add(this);
    const proc = this.proc;
    await waitForPing(this.port, () => proc.exitCode !== null || proc.signalCode !== null);
    return this;
  }

  /** SIGKILL: the connection drops as in a crash. */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGKILL');
    });
    this.proc = undefined;
  }

  /** Suspends the process (SIGSTOP): connections stay open but nothing answers — a hung Redis. */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  async stop(): Promise<void> {
    this.resume();
    await this.kill();
    processes.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const processes = new Set<RedisProcess>();
process.once('exit', () => {
  for (const p of processes) {
    try {
      p.resume();
      void p.kill();
    } catch {
      /* ignore */
    }
  }
});

export async function startRedis(extraArgs: string[] = []): Promise<RedisProcess> {
  return new RedisProcess(await freePort(), extraArgs).start();
}

export interface RedisClusterProcess {
  nodes: { host: string; port: number }[];
  processes: RedisProcess[];
  stop(): Promise<void>;
}

/** Whether `port` can be bound on 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * One cluster node on a free port whose bus port (port + 10000) is free too. Test files run in parallel, so
 * another file's server may still take either port before this one binds it: the node then exits at once, and
 * it is started again on other ports (a node once died here because another file's node held its bus port).
 */
async function startClusterNode(attempts = 5): Promise<RedisProcess> {
  for (let i = 1; ; i++) {
    let port = await freePort();
    while (port + 10_000 > 65_535 || !(await bindable(port + 10_000))) port = await freePort();
    const node = new RedisProcess(port, [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      '2000',
    ]);
    try {
      return await node.start();
    } catch (err) {
      if (!(err instanceof RedisExitedError) || i >= attempts) throw err;
    }
  }
}

/**
 * A real Redis Cluster of `masters` masters and `replicas` replicas per
 * master, created with `redis-cli --cluster create`; resolves once every
 * node agrees that all slots are served and every replica is in sync.
 */
export async function startRedisCluster(masters = 3, replicas = 0): Promise<RedisClusterProcess> {
  const procs: RedisProcess[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) procs.push(await startClusterNode());
  execFileSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...procs.map((p) => `127.0.0.1:${p.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ],
    { stdio: 'ignore' },
  );
  // Wait until every node agrees that all slots are served, and every replica is in sync.
  const deadline = Date.now() + 20_000;
  const cli = (port: number, ...args: string[]) =>
    execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  for (;;) {
    const ok = procs.every((p) => {
      try {
        if (!/cluster_state:ok/.test(cli(p.port, 'cluster', 'info'))) return false;
        const info = cli(p.port, 'info', 'replication');
        return !/role:slave/.test(info) || /master_link_status:up/.test(info);
      } catch {
        return false;
      }
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error('redis cluster did not reach cluster_state:ok');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    nodes: procs.map((p) => ({ host: '127.0.0.1', port: p.port })),
    processes: procs,
    stop: async () => {
      await Promise.all(procs.map((p) => p.stop()));
    },
  };
}

/** A Redis Sentinel on a free port monitoring the primary at `primaryPort` as `name` (quorum 1, fast failure detection). */
export async function startSentinel(primaryPort: number, name = 'mymaster'): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rampart-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  return new RedisProcess(port, [], conf).start();
}

/** A command as MONITOR prints it: `source` is the client's address, or `lua` inside a script. */
export interface MonitoredCommand {
  source: string;
  args: string[];
}

const unescape = (s: string): string =>
  s.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) =>
    e.length === 3
      ? String.fromCharCode(parseInt(e.slice(1), 16))
      : (({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[e] ?? e),
  );

/**
 * MONITOR on the redis-server at `port`, read through `redis-cli` (its own process, so no
 * client library has to tell MONITOR's stream from command replies: ioredis's monitor mode
 * can fail with "Command queue state error" when lines arrive with MONITOR's own OK).
 * Resolves once MONITOR is attached; `stop()` ends it.
 */
export async function monitorCommands(
  port: number,
  onCommand: (c: MonitoredCommand) => void,
): Promise<{ stop: () => void }> {
  const cli = spawn('redis-cli', ['-p', String(port), 'monitor'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let rest = '';
  let attached: () => void = () => {};
  const ok = new Promise<void>((resolve, reject) => {
    attached = resolve;
    cli.once('exit', (code) => reject(new Error(`redis-cli monitor exited (${code})`)));
  });
  cli.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line.trim() === 'OK') attached();
      const m = /^\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/.exec(line.trim());
      if (!m) continue;
      const args = [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => unescape(a[1]!));
      onCommand({ source: m[1]!, args });
    }
  });
  await ok;
  return { stop: () => cli.kill('SIGKILL') };
}
