import { Global, Module } from '@nestjs/common';
import { RedisBus } from './redis-bus.js';
import { RedisService } from './redis.service.js';

@Global()
@Module({
  providers: [RedisService, RedisBus],
  exports: [RedisService, RedisBus],
})
export class RedisModule {}
