/**
 * A tiny load balancer for tests, on the client side: it polls each
 * instance's `/health/ready` and sends a request only to an instance whose
 * last answer was 200 (round robin), as a Kubernetes Service or an HTTP
 * proxy with active health checks would. A GET that fails to connect is
 * tried once more on another ready instance (like `proxy_next_upstream`).
 */
export interface Backend {
  name: string;
  url: string;
  ready: boolean;
  /** performance.now() of the first 200 from /health/ready (undefined before). */
  readySince?: number;
  /** performance.now() of the first request sent to it. */
  firstSent?: number;
  sent: number;
}

export class Balancer {
  readonly backends: Backend[] = [];
  private timer: NodeJS.Timeout | undefined;
  private next = 0;

  constructor(private readonly pollMs = 50) {}

  add(name: string, url: string): Backend {
    const b: Backend = { name, url, ready: false, sent: 0 };
    this.backends.push(b);
    void this.probe(b);
    return b;
  }

  remove(name: string): void {
    const i = this.backends.findIndex((b) => b.name === name);
    if (i >= 0) this.backends.splice(i, 1);
  }

  start(): this {
    this.timer = setInterval(() => {
      for (const b of this.backends) void this.probe(b);
    }, this.pollMs);
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async probe(b: Backend): Promise<void> {
    try {
      const res = await fetch(`${b.url}/health/ready`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      b.ready = res.status === 200;
      if (b.ready) b.readySince ??= performance.now();
    } catch {
      b.ready = false;
    }
  }

  private pick(exclude?: Backend): Backend | undefined {
    const ready = this.backends.filter((b) => b.ready && b !== exclude);
    if (ready.length === 0) return undefined;
    return ready[this.next++ % ready.length];
  }

  /** Sends `path` to a ready instance; resolves with the response and the instance, or status 0 when none is ready. */
  async get(path: string): Promise<{ status: number; backend?: Backend; res?: Response }> {
    let tried: Backend | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const b = this.pick(tried);
      if (!b) return { status: 0 };
      b.firstSent ??= performance.now();
      b.sent++;
      try {
        const res = await fetch(`${b.url}${path}`, { signal: AbortSignal.timeout(30_000) });
        return { status: res.status, backend: b, res };
      } catch {
        b.ready = false;
        tried = b;
      }
    }
    return { status: 0 };
  }
}
