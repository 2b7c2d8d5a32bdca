/** Types of strict-bot-api.mjs (a fake Bot API as strict as Telegram's flood control). */
export interface StrictOptions {
  /** `strict`: sliding windows and cooldowns; `tolerant`: a refilling bucket, bursts of 5. */
  profile?: 'strict' | 'tolerant';
  perBot?: number;
  perChat?: number;
  windowMs?: number;
  /** Seconds of the 429s it answers, and of the cooldown each starts. */
  retryAfter?: number;
  /** Every answer waits this long (a network round trip). */
  latencyMs?: number;
}

export interface StrictCall {
  token: string;
  method: string;
  chat: string;
  text?: string;
  /** Epoch ms the call arrived / was answered. */
  at: number;
  answeredAt?: number;
  status: number;
  violation?: boolean;
}

export interface StrictCooldown {
  token: string;
  chat?: string;
  scope: 'bot' | 'chat' | 'injected';
  at: number;
  answeredAt?: number;
  until: number;
}

export interface StrictViolation {
  token: string;
  chat: string;
  at: number;
  cooldownAt: number;
  answeredAt?: number;
  /** Arrived before the 429 that started the cooldown was answered: it left before anyone knew. */
  inFlight: boolean;
}

export interface StrictBotApi {
  readonly url: string;
  readonly calls: StrictCall[];
  readonly cooldowns: StrictCooldown[];
  readonly violations: StrictViolation[];
  readonly options: Required<StrictOptions>;
  inject(token: string, seconds: number): void;
  close(): Promise<void>;
}

export function startStrictBotApi(opts?: StrictOptions): Promise<StrictBotApi>;
