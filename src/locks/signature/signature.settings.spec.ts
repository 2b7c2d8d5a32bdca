import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import { signatureSettings } from './signature.settings.js';

const config = (signature?: unknown): RampartConfig =>
  ({ sections: signature === undefined ? {} : { signature } }) as unknown as RampartConfig;

describe(signatureSettings.name, () => {
  it('should read the session-key deny set cap, and refuse one out of range', () => {
    expect(signatureSettings(config()).memorySessionKeyDenials).toBe(100_000);
    expect(
      signatureSettings(config({ memorySessionKeyDenials: 500 })).memorySessionKeyDenials,
    ).toBe(500);
    for (const bad of [0, 99, 1.5, '1000', 60_000_000])
      expect(() => signatureSettings(config({ memorySessionKeyDenials: bad }))).toThrow(
        ConfigError,
      );
  });
});
