/**
 * Setup file of the e2e ring: the secret scan (test/support/secret-scan.ts)
 * records every log line and response of the apps each e2e file starts, and
 * fails the file if an app secret, admin token, upstream API key or other
 * configured secret shows anywhere outside its one creation answer.
 */
import { afterAll, expect } from 'vitest';
import { installResponseCapture, scanAndReset } from './secret-scan.js';

installResponseCapture();

afterAll(() => {
  const { leaks } = scanAndReset();
  expect(leaks, 'secrets found in logs or responses of this e2e file').toEqual([]);
});
