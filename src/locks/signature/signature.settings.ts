import { Inject } from '@nestjs/common';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import { MAX_SKEW_SECONDS, type SignatureSettings } from './signature.types.js';

/** Injection token of the validated SignatureSettings (CONFIG_FILE `signature:` section). */
export const SIGNATURE_SETTINGS = Symbol('SIGNATURE_SETTINGS');

/** `constructor(@InjectSignatureSettings() settings: SignatureSettings)`. */
export const InjectSignatureSettings = (): ParameterDecorator => Inject(SIGNATURE_SETTINGS);

export const SIGNATURE_SETTINGS_DEFAULTS: SignatureSettings = {
  skewSeconds: 180,
  memoryNonceMaxEntries: 500_000,
  memorySessionKeyDenials: 100_000,
};

/** Reads and validates `config.sections.signature`; throws ConfigError listing every problem. */
export function signatureSettings(config: RampartConfig): SignatureSettings {
  const raw = config.sections.signature;
  if (raw === undefined) return { ...SIGNATURE_SETTINGS_DEFAULTS };
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ConfigError(['CONFIG_FILE: signature must be an object']);
  const out = { ...SIGNATURE_SETTINGS_DEFAULTS };
  for (const [k, v] of Object.entries(raw)) {
    switch (k) {
      case 'skewSeconds':
        if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_SKEW_SECONDS)
          problems.push(
            `CONFIG_FILE: signature.skewSeconds must be an integer between 1 and ${MAX_SKEW_SECONDS}`,
          );
        else out.skewSeconds = v as number;
        break;
      case 'memoryNonceMaxEntries':
        if (!Number.isInteger(v) || (v as number) < 1000)
          problems.push('CONFIG_FILE: signature.memoryNonceMaxEntries must be an integer ≥ 1000');
        else out.memoryNonceMaxEntries = v as number;
        break;
      case 'memorySessionKeyDenials':
        if (!Number.isInteger(v) || (v as number) < 100 || (v as number) > 50_000_000)
          problems.push(
            'CONFIG_FILE: signature.memorySessionKeyDenials must be an integer from 100 to 50000000',
          );
        else out.memorySessionKeyDenials = v as number;
        break;
      default:
        problems.push(
          `CONFIG_FILE: signature.${k} is not a known option (skewSeconds, memoryNonceMaxEntries, memorySessionKeyDenials)`,
        );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
