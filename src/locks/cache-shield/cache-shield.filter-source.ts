/**
 * The cache shield's FILTER SOURCE extension point: the Bloom filters a
 * product provides (`CacheShieldModule.forFeature({ filters, revision,
 * onBeforeAdd })`). The shield builds, shares and versions the filters; the
 * product only says where their keys come from and when they change.
 */

/** Where one filter's keys come from: the authoritative data only, never user input. */
export interface FilterSource {
  /** Filter name, e.g. `search-terms`; a key source's requests name it. Unique in the app. */
  readonly name: string;
  /** Shown with each build, e.g. `sqlite:vocabulary`. Never user input. */
  readonly source: string;
  /** Every key, from the authoritative data. */
  keys(): AsyncIterable<string>;
}

/**
 * The shield's hook a product awaits before every write: the keys the write
 * makes findable, by filter name (a filter of the product that is missing
 * gets an empty add). They reach this instance's filters, then the store and
 * every instance, before the hook resolves. A rejection means the keys could
 * not be announced: the product must fail the write, so that no instance
 * ever reports a findable key absent.
 */
export type BeforeAddHook = (
  keysByFilter: Readonly<Record<string, readonly string[]>>,
) => Promise<void>;

/** The filters of one product, which change together. */
export interface FilterGroup {
  readonly filters: readonly FilterSource[];
  /**
   * The product's data revision: grows by one with every committed write
   * (also one made by another process, e.g. an import CLI). A filter whose
   * build and announced adds do not account for it is bypassed until it is
   * rebuilt. Omitted: the data never changes.
   */
  revision?(): Promise<number>;
  /**
   * Installs the shield's hook; the product awaits it before each write and
   * counts one revision per write. Returns a function that removes it.
   * Omitted: the product is never written through this app.
   */
  onBeforeAdd?(hook: BeforeAddHook): () => void;
}
