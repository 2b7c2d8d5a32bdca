import { type GroupScaleRow, parseGroupScale } from './group-scale.js';
import { type BotConfig, DEFAULT_COMMAND_COSTS } from './telegram.types.js';

/** A bot id or scope. */
export const ID = /^[a-z0-9-]{1,32}$/;
const COMMAND = /^\/[a-z0-9_]{1,32}$/;
/** Telegram's own default for setWebhook's max_connections. */
export const DEFAULT_MAX_CONNECTIONS = 40;
/** An app id as the apps registry takes it. */
const APP_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A bot's options past its token and delivery: costs, admins, group scale, fail mode, scope, apps. */
export interface BotOptions {
  commandCosts: Record<string, number>;
  adminUserIds: string[];
  groupScale?: GroupScaleRow[];
  failMode: BotConfig['failMode'];
  maxConnections: number;
  scope: string;
  apps?: string[];
}

/** Validates a bot's `commandCosts` … `apps` (in that order); pushes problems to `p`. */
export function parseBotOptions(o: Record<string, unknown>, at: string, p: string[]): BotOptions {
  const costs = { ...DEFAULT_COMMAND_COSTS };
  if (o.commandCosts !== undefined) {
    if (typeof o.commandCosts !== 'object' || o.commandCosts === null)
      p.push(`${at}.commandCosts must be a map`);
    else
      for (const [cmd, c] of Object.entries(o.commandCosts)) {
        if (!COMMAND.test(cmd) || !Number.isInteger(c) || (c as number) < 1)
          p.push(`${at}.commandCosts["${cmd}"]: a /command and an integer ≥ 1`);
        else costs[cmd] = c as number;
      }
  }
  const admins = o.adminUserIds ?? [];
  if (
    !Array.isArray(admins) ||
    !admins.every((a) => Number.isSafeInteger(a) || (typeof a === 'string' && /^\d{1,20}$/.test(a)))
  )
    p.push(`${at}.adminUserIds must be a list of Telegram user ids`);
  const groupScale = parseGroupScale(o.groupScale, at, p);
  if (o.failMode !== undefined && !['open', 'closed', 'local'].includes(o.failMode as string))
    p.push(`${at}.failMode must be one of open, closed, local`);
  const maxConnections = o.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (
    !Number.isInteger(maxConnections) ||
    (maxConnections as number) < 1 ||
    (maxConnections as number) > 100
  )
    p.push(`${at}.maxConnections must be an integer from 1 to 100 (Telegram's range)`);
  if (o.scope !== undefined && (typeof o.scope !== 'string' || !ID.test(o.scope)))
    p.push(`${at}.scope must match [a-z0-9-]{1,32}`);
  const apps = o.apps;
  if (
    apps !== undefined &&
    (!Array.isArray(apps) ||
      apps.length === 0 ||
      !apps.every((a) => typeof a === 'string' && APP_ID.test(a)))
  )
    p.push(`${at}.apps must be a non-empty list of app ids (the apps that may send through it)`);
  return {
    commandCosts: costs,
    adminUserIds: Array.isArray(admins) ? admins.map(String) : [],
    ...(groupScale ? { groupScale } : {}),
    failMode: o.failMode as BotConfig['failMode'],
    maxConnections: maxConnections as number,
    scope: (o.scope as string | undefined) ?? 'default',
    ...(apps !== undefined ? { apps: apps as string[] } : {}),
  };
}
