import { Global, Module } from '@nestjs/common';
import { CLOCK, systemClock } from './clock.js';
import { FrontDoor } from './front-door.js';
import { ProblemStyles } from './problem-styles.js';
import { ResponseTaps } from './response-taps.js';

/**
 * Ground-floor providers every module may inject: the Clock (tests override
 * `CLOCK`), the problem styles products register for their paths, the
 * listeners of finished responses and the front door's checks.
 */
@Global()
@Module({
  providers: [{ provide: CLOCK, useValue: systemClock }, ProblemStyles, ResponseTaps, FrontDoor],
  exports: [CLOCK, ProblemStyles, ResponseTaps, FrontDoor],
})
export class CommonModule {}
