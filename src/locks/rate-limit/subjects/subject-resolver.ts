import { CidrSet, addressGroup } from '../../../http/cidr.js';
import { clientAddress, header } from '../../../http/http-context.js';
import type {
  Subject,
  SubjectContext,
  SubjectExtractor,
} from '../extensions/rate-limit-extensions.js';
import type { Dimension } from '../core/dimensions.js';

const GLOBAL: Subject = { value: '-', personal: false };
const MAX_USER = 256;

/**
 * The subject of each dimension for one request. Built in, from the shared
 * request state: app/tier (signature lock), user (verified identity, else the
 * configured header; scoped by the request's app), ip (client address with trusted proxies, stored in
 * state.clientIp), route, and a constant for global. Where the built-in finds
 * none, the product's extractor of that dimension answers (`command`, `chat`,
 * `bot`, a Telegram sender for `user`: see RateLimitModule.forFeature).
 * Undefined = missing (the rule is skipped).
 */
export class SubjectResolver {
  /**
   * `ipv6Prefix`: IPv6 clients are limited per network of this many bits
   * (default /64), so one host cannot take a fresh quota per address;
   * `onMalformedForward`: a forwarded hop that is not an address (counted).
   */
  constructor(
    private readonly trusted: CidrSet,
    private readonly userHeader: string | undefined,
    private readonly ipv6Prefix = 64,
    private readonly onMalformedForward?: () => void,
  ) {}

  /** `extract`: the product's extractor of `dimension`, looked up once when the policy was compiled. */
  resolve(
    dimension: Dimension,
    ctx: SubjectContext,
    extract: SubjectExtractor | undefined,
  ): Subject | undefined {
    const own = this.builtIn(dimension, ctx);
    return own !== undefined || extract === undefined ? own : extract(ctx);
  }

  private builtIn(dimension: Dimension, ctx: SubjectContext): Subject | undefined {
    const s = ctx.state;
    switch (dimension) {
      case 'global':
        return GLOBAL;
      case 'app':
        return s.appId ? { value: s.appId, personal: false } : undefined;
      case 'user': {
        const id =
          s.userId ?? (this.userHeader ? header(ctx.req, this.userHeader)?.trim() : undefined);
        // An app names its own users: scoped by the app (a header user of an unsigned request has none).
        if (!id) return undefined;
        return s.appId
          ? { value: id.slice(0, MAX_USER), personal: true, scope: s.appId }
          : { value: id.slice(0, MAX_USER), personal: true };
      }
      case 'ip': {
        s.clientIp ??= clientAddress(ctx.req, this.trusted, this.onMalformedForward);
        return s.clientIp
          ? { value: addressGroup(s.clientIp, this.ipv6Prefix), personal: true }
          : undefined;
      }
      case 'route': {
        const r = s.route ?? ctx.route;
        return r ? { value: `${ctx.req.method}${r}`, personal: false } : undefined;
      }
      case 'command':
      case 'chat':
      case 'bot':
        return undefined;
    }
  }
}
