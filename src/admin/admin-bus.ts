/** The admin announcements ride the service's one pub/sub connection (src/redis/redis-bus.ts). */
export { RedisBus as AdminBus } from '../redis/redis-bus.js';
