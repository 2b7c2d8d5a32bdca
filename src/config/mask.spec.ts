import { describe, expect, it } from 'vitest';
import { maskSecrets } from './mask.js';

describe(maskSecrets.name, () => {
  it('should mask secret-looking fields, lists of secrets included, and keep the rest', () => {
    const masked = maskSecrets({
      telegram: {
        apiRoot: 'https://api.telegram.org',
        bots: [
          {
            id: 'shop',
            secretTokens: ['cur_1', 'prev_0'],
            pathSecret: 'p4th',
            tokenFile: '/run/t',
            mode: 'forward',
          },
        ],
      },
      adminToken: 'x'.repeat(20),
    });
    expect(masked).toEqual({
      telegram: {
        apiRoot: 'https://api.telegram.org',
        bots: [
          {
            id: 'shop',
            secretTokens: ['***', '***'],
            pathSecret: '***',
            tokenFile: '***',
            mode: 'forward',
          },
        ],
      },
      adminToken: '***',
    });
  });
});
