import { describe, expect, it } from 'vitest';
import { CidrSet } from '../../../http/cidr.js';
import type { RequestState } from '../../../http/request-state.js';
import { type AnyRequest, header } from '../../../http/http-context.js';
import { RateLimitExtensions } from '../extensions/rate-limit-extensions.js';
import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';
import { KeyHasher } from '../subjects/key-hasher.js';
import { SubjectResolver } from '../subjects/subject-resolver.js';
import { compileSlice } from './compile-policy.js';
import { activeRules, buildBuckets, requestCost } from './request-buckets.js';

const slice: RateLimitSlice = {
  mode: 'enforce',
  cost: 'inference',
  tiers: { pro: 5 },
  rules: [
    { name: 'per-app', dimension: 'app', capacity: 10, rate: '1/s' },
    { name: 'per-ip', dimension: 'ip', capacity: 20, rate: 2 },
    { name: 'global', dimension: 'global', capacity: 100, rate: '10/s' },
    { name: 'chat', dimension: 'chat', capacity: 5, rate: '1/min', scope: 'subject' },
  ],
};
/** What products register: a cost function by max_tokens bands, and a chat extractor (from a header here). */
const extensions = new RateLimitExtensions();
extensions.register({
  costs: {
    inference: (req: AnyRequest) => {
      const n = (req as { body?: { max_tokens?: number } }).body?.max_tokens ?? 256;
      return n <= 256 ? 1 : n <= 1024 ? 2 : n <= 4096 ? 4 : 8;
    },
  },
  subjects: {
    chat: (c) => {
      const id = header(c.req, 'x-test-chat');
      return id ? { value: id, personal: true } : undefined;
    },
  },
});
const policy = compileSlice(slice, 'inference', extensions);
const hasher = new KeyHasher(Buffer.from('k'.repeat(32)));
const subjects = new SubjectResolver(new CidrSet(['10.0.0.0/8']), undefined);

function ctx(
  state: RequestState,
  critical = false,
  body: unknown = { max_tokens: 2000 },
  headers: Record<string, string> = {},
) {
  const req = {
    headers: { 'x-forwarded-for': '198.51.100.7, 10.1.1.1', ...headers },
    method: 'POST',
    url: '/v1/x',
    socket: { remoteAddress: '10.0.0.2' } as never,
    body,
  };
  return { req, state, route: '/v1/x', policy: { critical, locks: {} } };
}

describe(buildBuckets.name, () => {
  it('should key each rule as rl:{env:service}:<dimension>:<subject>:<action>, hashing personal subjects', () => {
    const c = ctx({ appId: 'shop' }, false, undefined, { 'x-test-chat': '42' });
    const active = activeRules(policy, c, subjects, () => undefined);
    const { buckets } = buildBuckets(policy, active, {
      tag: '{prod:rampart}',
      hasher,
      cost: 1,
      scale: 1,
      critical: false,
    });
    expect(buckets.map((b) => b.key.replace(/:[A-Za-z0-9_-]{16}:/, ':<hash>:'))).toEqual([
      'rl:{prod:rampart}:app:shop:inference.per-app',
      'rl:{prod:rampart}:ip:<hash>:inference.per-ip',
      'rl:{prod:rampart}:global:-:inference.global',
      'rl:{prod:rampart:chat:<hash>:inference.chat}',
    ]);
    expect(buckets.map((b) => b.group)).toEqual([
      '{prod:rampart}',
      '{prod:rampart}',
      '{prod:rampart}',
      buckets[3]!.key.slice(3),
    ]);
    expect(buckets.some((b) => b.key.includes('198.51.100.7') || b.key.includes(':42'))).toBe(
      false,
    );
    // The client address behind a trusted proxy is the right-most untrusted hop, kept in the state.
    expect(c.state.clientIp).toBe('198.51.100.7');
  });

  it('should multiply capacity and rate by the tier for app and user rules only, and add the fuse except on critical routes', () => {
    const active = activeRules(
      policy,
      ctx({ appId: 'shop', tier: 'pro' }),
      subjects,
      () => undefined,
    );
    const fuse = { limit: 50, windowMs: 1000 };
    const { buckets, meta } = buildBuckets(policy, active, {
      tag: '{t:r}',
      hasher,
      cost: 2,
      tier: 'pro',
      scale: 0.5,
      fuse,
      critical: false,
    });
    const app = buckets[0]!;
    expect(app.capacity).toBe(10 * 5 * 0.5);
    expect(app.intervalUs).toBeCloseTo(1e6 / (1 * 5 * 0.5));
    expect(buckets[1]!.capacity).toBe(20 * 0.5);
    expect(buckets.at(-1)).toMatchObject({
      kind: 'f',
      capacity: 25,
      key: 'rl:{t:r}:global:-:fuse',
    });
    expect(meta.map((m) => m.id)).toEqual([
      'inference.per-app',
      'inference.per-ip',
      'inference.global',
      'fuse',
    ]);
    expect(
      buildBuckets(policy, active, {
        tag: '{t:r}',
        hasher,
        cost: 2,
        scale: 1,
        fuse,
        critical: true,
      }).buckets.some((b) => b.kind === 'f'),
    ).toBe(false);
  });
});

describe(activeRules.name, () => {
  it('should skip rules without a subject and global rules on critical routes, reporting each', () => {
    const skipped: string[] = [];
    const active = activeRules(policy, ctx({}, true), subjects, (r) => skipped.push(r.name));
    expect(active.map((a) => a.rule.name)).toEqual(['per-ip']);
    expect(skipped).toEqual(['per-app', 'global', 'chat']);
  });
});

describe('activeRules with conditions', () => {
  const ext = new RateLimitExtensions();
  const asked: string[] = [];
  const attr = (name: string) => (c: { req: AnyRequest }) => {
    asked.push(name);
    return header(c.req, `x-${name.toLowerCase()}`);
  };
  ext.register({ attributes: { chatType: attr('chatType'), role: attr('role') } });
  const conditional = compileSlice(
    {
      mode: 'enforce',
      rules: [
        {
          name: 'chat-group',
          dimension: 'ip',
          capacity: 5,
          rate: 1,
          when: { chatType: ['group', 'supergroup'] },
        },
        { name: 'global', dimension: 'global', capacity: 5, rate: 1, unless: { role: ['admin'] } },
        {
          name: 'both',
          dimension: 'ip',
          capacity: 5,
          rate: 1,
          when: { chatType: ['group'], role: ['member'] },
        },
        { name: 'always', dimension: 'chat', capacity: 5, rate: 1 },
      ],
    },
    'tg',
    ext,
  );
  const names = (headers: Record<string, string>, skipped: string[] = []) =>
    activeRules(conditional, ctx({}, false, undefined, headers), subjects, (r) =>
      skipped.push(r.name),
    ).map((a) => a.rule.name);

  it('should apply a rule only when every when-attribute is listed and no unless-attribute is', () => {
    expect(names({ 'x-chattype': 'group', 'x-role': 'member' })).toEqual([
      'chat-group',
      'global',
      'both',
    ]);
    expect(names({ 'x-chattype': 'supergroup', 'x-role': 'admin' })).toEqual(['chat-group']);
    expect(names({ 'x-chattype': 'private' })).toEqual(['global']);
    expect(names({})).toEqual(['global']);
  });

  it('should not count a rule left out by a condition as a missing subject, and ask each attribute once', () => {
    const skipped: string[] = [];
    asked.length = 0;
    expect(names({ 'x-chattype': 'private' }, skipped)).toEqual(['global']);
    expect(skipped).toEqual(['always']); // no chat extractor: missing subject; the others are conditions
    expect(asked.sort()).toEqual(['chatType', 'role']);
  });
});

describe(requestCost.name, () => {
  it('should take the route cost first, then the cost function, and always an integer ≥ 1', () => {
    expect(requestCost(policy, ctx({}))).toBe(4); // max_tokens 2000 → the ≤ 4096 band
    expect(requestCost(policy, ctx({ cost: 3 }))).toBe(3);
    expect(requestCost(policy, ctx({ cost: 2.2 }))).toBe(3);
    expect(requestCost(policy, ctx({ cost: 0 }))).toBe(1);
    expect(requestCost(compileSlice({ ...slice, cost: 4 }, 'p', extensions), ctx({}))).toBe(4);
  });
});
