import { Global, Module } from '@nestjs/common';
import { CLOCK, systemClock } from './clock.js';

/** Ground-floor providers every module may inject: the Clock. Tests override `CLOCK`. */
@Global()
@Module({
  providers: [{ provide: CLOCK, useValue: systemClock }],
  exports: [CLOCK],
})
export class CommonModule {}
