/**
 * Redis keys of the Bloom builds. Every key carries the service hash tag
 * `{<env>:<service>}`, so all keys one script touches share a Cluster slot.
 */
export class BloomKeys {
  constructor(private readonly tag: string) {}

  /** Pub/sub channel of activations and add batches. */
  get channel(): string {
    return `shield:${this.tag}:bloom:events`;
  }

  pointer(filter: string): string {
    return `shield:${this.tag}:bloom:${filter}:ptr`;
  }

  counter(filter: string): string {
    return `shield:${this.tag}:bloom:${filter}:ver`;
  }

  lock(filter: string): string {
    return `shield:${this.tag}:bloom:${filter}:lock`;
  }

  log(filter: string): string {
    return `shield:${this.tag}:bloom:${filter}:log`;
  }

  bits(filter: string, version: number): string {
    return `shield:${this.tag}:bloom:${filter}:v${version}:bits`;
  }

  info(filter: string, version: number): string {
    return `shield:${this.tag}:bloom:${filter}:v${version}:info`;
  }
}
