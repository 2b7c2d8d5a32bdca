import { Module, OnModuleInit } from '@nestjs/common';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import { HealthRegistry } from '../health/health-registry.service.js';
import { RedisService } from '../redis/redis.service.js';
import { AdminBus } from './admin-bus.js';
import { AdminMetrics } from './admin-metrics.js';
import { AdminRedis } from './admin-redis.js';
import { ADMIN_SETTINGS, AdminSettings, adminSettings } from './admin-settings.js';
import { APP_STORE } from './apps/app-store.js';
import { AppsAdmin } from './apps/apps-admin.service.js';
import { AppsSync } from './apps/apps-sync.service.js';
import { MemoryAppStore } from './apps/memory-app.store.js';
import { RedisAppStore } from './apps/redis-app.store.js';
import { AUDIT_LOG } from './audit/audit-log.js';
import { AuditRecorder } from './audit/audit-recorder.service.js';
import { MemoryAuditLog } from './audit/memory-audit.log.js';
import { RedisAuditLog } from './audit/redis-audit.log.js';
import { AdminAuthGuard } from './auth/admin-auth.guard.js';
import { AdminTokens } from './auth/admin-tokens.js';
import { AdminAppsController } from './controllers/admin-apps.controller.js';
import { AdminSessionKeysController } from './controllers/admin-session-keys.controller.js';
import { SessionKeysAdmin } from './apps/session-keys-admin.service.js';
import { AdminAuditController } from './controllers/admin-audit.controller.js';
import { AdminBloomController } from './controllers/admin-bloom.controller.js';
import { AdminBreakersController } from './controllers/admin-breakers.controller.js';
import { AdminConfigController } from './controllers/admin-config.controller.js';
import { AdminPoliciesController } from './controllers/admin-policies.controller.js';
import { AdminPolicyEditController } from './controllers/admin-policy-edit.controller.js';
import { AdminStatusController } from './controllers/admin-status.controller.js';
import { AdminTelegramController } from './controllers/admin-telegram.controller.js';
import { OutboundCoreModule } from '../telegram/outbound/outbound.module.js';
import { AdminSubjectsController } from './controllers/admin-subjects.controller.js';
import { AdminUsageController } from './controllers/admin-usage.controller.js';
import { InstalledParts } from './installed-parts.service.js';
import { MemoryPolicyStore } from './policies/memory-policy.store.js';
import { PolicyChanges } from './policies/policy-changes.service.js';
import { POLICY_STORE } from './policies/policy-store.js';
import { PolicySync } from './policies/policy-sync.service.js';
import { RedisPolicyStore } from './policies/redis-policy.store.js';
import { AdminStatus } from './status/admin-status.service.js';
import { MemoryStatsStore } from './status/memory-stats.store.js';
import { RedisStatsStore } from './status/redis-stats.store.js';
import { STATS_STORE } from './status/stats-store.js';
import { StatusSeries } from './status/status-series.service.js';
import { RedisFiguresSampler } from './observability/redis-figures.service.js';
import { ConsoleController } from './console/console.controller.js';
import { ConsoleFiles } from './console/console-files.js';
import { AdminBansController } from './controllers/admin-bans.controller.js';
import { BAN_STORE } from './bans/ban-store.js';
import { BansAdmin } from './bans/bans-admin.service.js';
import { BansSync } from './bans/bans-sync.service.js';
import { MemoryBanStore } from './bans/memory-ban.store.js';
import { RedisBanStore } from './bans/redis-ban.store.js';

/**
 * The admin API under /admin: read the configuration, change route
 * policies (lock modes, options, rollbacks), apps, Bloom filters and
 * breakers at run time on every instance, with bearer-token auth and an
 * audit log. State is in Redis when configured, else in memory (one instance).
 * Also serves the web console (static files under /admin/ui, which calls
 * this API with the token its user types) and samples the figures it shows.
 */
@Module({
  imports: [OutboundCoreModule],
  controllers: [
    AdminConfigController,
    AdminPoliciesController,
    AdminPolicyEditController,
    AdminAppsController,
    AdminSessionKeysController,
    AdminBloomController,
    AdminBreakersController,
    AdminStatusController,
    AdminAuditController,
    AdminTelegramController,
    AdminSubjectsController,
    AdminBansController,
    AdminUsageController,
    ConsoleController,
  ],
  providers: [
    { provide: ADMIN_SETTINGS, useFactory: adminSettings, inject: [RAMPART_CONFIG] },
    { provide: AdminTokens, useFactory: AdminTokens.fromConfig, inject: [RAMPART_CONFIG] },
    {
      provide: POLICY_STORE,
      useFactory: (redis: RedisService, admin: AdminRedis, bus: AdminBus, s: AdminSettings) =>
        redis.enabled
          ? new RedisPolicyStore(admin, bus, s.historyLimit)
          : new MemoryPolicyStore(s.historyLimit),
      inject: [RedisService, AdminRedis, AdminBus, ADMIN_SETTINGS],
    },
    {
      provide: APP_STORE,
      useFactory: (redis: RedisService, admin: AdminRedis, bus: AdminBus) =>
        redis.enabled ? new RedisAppStore(admin, bus) : new MemoryAppStore(),
      inject: [RedisService, AdminRedis, AdminBus],
    },
    {
      provide: BAN_STORE,
      useFactory: (redis: RedisService, admin: AdminRedis, bus: AdminBus) =>
        redis.enabled ? new RedisBanStore(admin, bus) : new MemoryBanStore(),
      inject: [RedisService, AdminRedis, AdminBus],
    },
    {
      provide: AUDIT_LOG,
      useFactory: (redis: RedisService, admin: AdminRedis, s: AdminSettings) =>
        redis.enabled ? new RedisAuditLog(admin, s.auditMaxLen) : new MemoryAuditLog(s.auditMaxLen),
      inject: [RedisService, AdminRedis, ADMIN_SETTINGS],
    },
    {
      provide: STATS_STORE,
      useFactory: (redis: RedisService, admin: AdminRedis, s: AdminSettings) =>
        redis.enabled ? new RedisStatsStore(admin, 10 * s.statsIntervalMs) : new MemoryStatsStore(),
      inject: [RedisService, AdminRedis, ADMIN_SETTINGS],
    },
    AdminMetrics,
    AdminRedis,
    AdminAuthGuard,
    AuditRecorder,
    InstalledParts,
    PolicySync,
    PolicyChanges,
    AppsSync,
    AppsAdmin,
    BansSync,
    BansAdmin,
    SessionKeysAdmin,
    AdminStatus,
    StatusSeries,
    RedisFiguresSampler,
    { provide: ConsoleFiles, useFactory: () => new ConsoleFiles() },
  ],
})
export class AdminModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly tokens: AdminTokens,
  ) {}

  /** An admin token may read /health/ready's detail. */
  onModuleInit(): void {
    this.health.allowDetail(
      (auth) => this.tokens.verify(typeof auth === 'string' ? auth : undefined) !== undefined,
    );
  }
}
