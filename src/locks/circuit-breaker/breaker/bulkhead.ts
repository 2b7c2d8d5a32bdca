/**
 * The cap on calls in flight to one backend. A slot is held until the
 * handler's promise has settled — not when a timer fires — so an aborted
 * call that is still winding down keeps its slot.
 */
export class Bulkhead {
  private taken = 0;

  /** `onChange` hears the number of slots taken after every change (for the in-flight gauge). */
  constructor(private readonly onChange: (inFlight: number) => void) {}

  get inFlight(): number {
    return this.taken;
  }

  /** True when `capacity` calls are in flight already. */
  full(capacity: number): boolean {
    return this.taken >= capacity;
  }

  /** Starts the handler and holds a slot until its promise has settled, whatever a timer says. */
  hold<T>(start: () => Promise<T>): Promise<T> {
    this.taken++;
    this.onChange(this.taken);
    let p: Promise<T>;
    try {
      p = Promise.resolve(start());
    } catch (err) {
      p = Promise.reject(err as Error);
    }
    const release = (): void => {
      this.taken--;
      this.onChange(this.taken);
    };
    p.then(release, release);
    return p;
  }
}
