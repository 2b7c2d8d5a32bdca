import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import { BAD_SIGNATURE_LOG_INTERVAL_MS, BadSignatureLog } from './bad-signature-log.js';
import { fail } from './signature.problems.js';

function setUp() {
  const clock = new ManualClock();
  const lines: Record<string, unknown>[] = [];
  const log = new BadSignatureLog(clock, { warn: (l) => lines.push(l as Record<string, unknown>) });
  const forged = (appId: string, sts = 'GET\n/v1/whoami') =>
    fail('bad_signature', 'hmac', 'signature does not match', { appId, stringToSign: sts });
  return { clock, lines, log, forged };
}

describe(BadSignatureLog.name, () => {
  it('should log the first failure of an app at once, with the hash of its string to sign', () => {
    const { lines, log, forged } = setUp();
    log.record(forged('app-1', 'the string'), 'whoami', 'req-1');
    expect(lines).toEqual([
      {
        msg: 'bad signature',
        app: 'app-1',
        scheme: 'hmac',
        policy: 'whoami',
        reqId: 'req-1',
        stringToSignSha256: createHash('sha256').update('the string').digest('hex'),
        suppressed: 0,
      },
    ]);
  });

  it('should write one line per app per second for a burst, carrying the count left out', () => {
    const { clock, lines, log, forged } = setUp();
    for (let i = 0; i < 500; i++) log.record(forged('app-1'), 'whoami', `r${i}`);
    expect(lines).toHaveLength(1);
    clock.advance(BAD_SIGNATURE_LOG_INTERVAL_MS - 1);
    log.record(forged('app-1'), 'whoami', 'r500');
    expect(lines).toHaveLength(1);
    clock.advance(1);
    log.record(forged('app-1'), 'whoami', 'r501');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ reqId: 'r501', suppressed: 500 });
    clock.advance(BAD_SIGNATURE_LOG_INTERVAL_MS * 10);
    log.record(forged('app-1'), 'whoami', 'r502');
    expect(lines[2]).toMatchObject({ reqId: 'r502', suppressed: 0 });
  });

  it('should bound each app on its own', () => {
    const { lines, log, forged } = setUp();
    for (let i = 0; i < 10; i++) {
      log.record(forged('app-1'), 'whoami', undefined);
      log.record(forged('app-2'), 'whoami', undefined);
    }
    expect(lines.map((l) => l.app)).toEqual(['app-1', 'app-2']);
  });
});
