import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ChainGuard } from './chain.guard.js';
import { ChainInterceptor } from './chain.interceptor.js';
import { LockChain } from './lock-chain.service.js';
import { LockStats } from './lock-stats.service.js';
import { RouteRegistry } from './route-registry.service.js';

/** The lock chain, its route registry and counters; lock modules import nothing else from here. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [LockChain, LockStats, RouteRegistry, ChainGuard, ChainInterceptor],
  exports: [LockChain, LockStats, RouteRegistry, ChainGuard, ChainInterceptor],
})
export class ChainModule {}
