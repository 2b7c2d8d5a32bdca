import { Global, Module } from '@nestjs/common';
import { CLOCK, systemClock } from './clock.js';
import { ProblemStyles } from './problem-styles.js';

/**
 * Ground-floor providers every module may inject: the Clock (tests override
 * `CLOCK`) and the problem styles products register for their paths.
 */
@Global()
@Module({
  providers: [{ provide: CLOCK, useValue: systemClock }, ProblemStyles],
  exports: [CLOCK, ProblemStyles],
})
export class CommonModule {}
