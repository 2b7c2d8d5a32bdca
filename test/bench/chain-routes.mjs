// The bench-only routes of bench:chain (see chain-app.mjs), as one Nest module over the built app
// (dist/). Never shipped. Shared by chain-app.mjs (over a socket) and chain-cost.mjs (in process).
import 'reflect-metadata';
import {
  Controller,
  Get,
  Inject,
  Injectable,
  Module,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';

const dist = new URL('../../dist/src/', import.meta.url).href;
const { Protect } = await import(`${dist}chain/protect.decorator.js`);
const { ProblemException } = await import(`${dist}common/problem.exception.js`);
const { RedisService } = await import(`${dist}redis/redis.service.js`);

class EmptyGuard {
  canActivate() {
    return true;
  }
}
Injectable()(EmptyGuard);

// Allows every request after one script call to Redis, made as the locks make theirs.
class RedisGuard {
  constructor(redis) {
    this.redis = redis;
  }
  async canActivate() {
    await this.redis.script('ping', [], ['bench']);
    return true;
  }
}
Injectable()(RedisGuard);
Inject(RedisService)(RedisGuard, undefined, 0);

// Refuses every request with a new 401 problem, built as the signature lock builds its own.
class RejectGuard {
  canActivate() {
    throw ProblemException.fast(401, 'bad_signature', 'Signature does not match', {
      headers: { 'www-authenticate': 'HMAC-SHA256' },
    });
  }
}
Injectable()(RejectGuard);

class EmptyInterceptor {
  intercept(_ctx, next) {
    return next.handle();
  }
}
Injectable()(EmptyInterceptor);

// The shape and size (≈ 490 bytes of JSON) of `GET /v1/search?q=paris&limit=3`'s answer.
const item = (id, name, country, population, lat, lon, featureCode, adminCode) => ({
  id,
  name,
  country,
  population,
  lat,
  lon,
  fields: { featureCode, adminCode },
});
const SEARCH_SIZED = {
  query: 'paris',
  total: 17,
  items: [
    item('2988507', 'Paris', 'FR', 2138551, 48.85341, 2.3488, 'PPLC', '11'),
    item('4717560', 'Paris', 'US', 24782, 33.66094, -95.55551, 'PPLA2', 'TX'),
    item('6942553', 'Paris', 'CA', 11177, 43.2, -80.38333, 'PPL', '08'),
  ],
  limit: 3,
  offset: 0,
};

class BenchController {
  floor() {
    return { now: Date.now() };
  }
  floorSearch() {
    return SEARCH_SIZED;
  }
  off() {
    return { now: Date.now() };
  }
  reject() {
    return { now: Date.now() };
  }
  floorRedis() {
    return { now: Date.now() };
  }
}
const method = (name, decorators) =>
  Reflect.decorate(
    decorators,
    BenchController.prototype,
    name,
    Object.getOwnPropertyDescriptor(BenchController.prototype, name),
  );
method('floor', [Get('floor'), UseGuards(EmptyGuard), UseInterceptors(EmptyInterceptor)]);
method('floorSearch', [
  Get('floor-search'),
  UseGuards(EmptyGuard),
  UseInterceptors(EmptyInterceptor),
]);
method('off', [Get('off'), Protect('bench-off')]);
method('floorRedis', [
  Get('floor-redis'),
  UseGuards(RedisGuard),
  UseInterceptors(EmptyInterceptor),
]);
method('reject', [Get('reject'), UseGuards(RejectGuard), UseInterceptors(EmptyInterceptor)]);
Controller('bench')(BenchController);

export class BenchModule {}
Module({
  controllers: [BenchController],
  providers: [EmptyGuard, RedisGuard, RejectGuard, EmptyInterceptor],
})(BenchModule);
