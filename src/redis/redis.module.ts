import { Global, Module } from '@nestjs/common';
import { HeartbeatRiders } from './heartbeat-riders.js';
import { RedisBus } from './redis-bus.js';
import { RedisService } from './redis.service.js';

@Global()
@Module({
  providers: [RedisService, RedisBus, HeartbeatRiders],
  exports: [RedisService, RedisBus, HeartbeatRiders],
})
export class RedisModule {}
