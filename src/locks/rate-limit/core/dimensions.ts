/**
 * Where a rule finds its subject: app, user, ip, route and global are built in
 * (subjects/subject-resolver.ts); products supply the others through
 * `RateLimitModule.forFeature({ subjects })` (extensions/rate-limit-extensions.ts).
 */
export const DIMENSIONS = [
  'app',
  'user',
  'ip',
  'route',
  'command',
  'chat',
  'bot',
  'global',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];
