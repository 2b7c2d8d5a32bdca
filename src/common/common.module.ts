import { Global, Module } from '@nestjs/common';
import { CLOCK, systemClock } from './clock.js';
import { ProblemStyles } from './problem-styles.js';
import { ResponseTaps } from './response-taps.js';

/**
 * Ground-floor providers every module may inject: the Clock (tests override
 * `CLOCK`), the problem styles products register for their paths, and the
 * listeners of finished responses.
 */
@Global()
@Module({
  providers: [{ provide: CLOCK, useValue: systemClock }, ProblemStyles, ResponseTaps],
  exports: [CLOCK, ProblemStyles, ResponseTaps],
})
export class CommonModule {}
