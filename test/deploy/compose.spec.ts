/**
 * docker-compose.yml, checked without a daemon: valid YAML with its merge
 * keys resolved, services built from the Dockerfile, every dependency a
 * service that runs in the same profile, bind-mounted files that exist, the
 * proxy's address trusted by the instances behind it (and only it), the
 * nginx upstreams being those instances, the cluster instance seeded with the
 * cluster's nodes, health checks on real routes, and only variables the
 * service reads.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CidrSet, isValidCidr } from '../../src/http/cidr.js';
import { ROOT, getRoutes, read, variablesRead } from './deploy-files.js';

interface Service {
  build?: string;
  image?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string }>;
  healthcheck?: { test: string[] };
  command?: string[];
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
};
const services = compose.services;
const profileOf = (name: string): string | undefined => services[name]!.profiles?.[0];
const inProfile = (p: string | undefined) =>
  Object.keys(services).filter((n) => profileOf(n) === p);
const address = (name: string): string | undefined => {
  const n = services[name]!.networks;
  return Array.isArray(n) ? undefined : n?.rampart?.ipv4_address;
};

describe('docker-compose.yml', () => {
  it('should run the default instance and add the scaled and cluster profiles', () => {
    expect(inProfile(undefined).sort()).toEqual(['rampart', 'redis']);
    expect(inProfile('scaled').sort()).toEqual(['proxy', 'rampart-1', 'rampart-2', 'rampart-3']);
    expect(inProfile('cluster').sort()).toEqual([
      'rampart-cluster',
      'redis-cluster-init',
      'redis-node-1',
      'redis-node-2',
      'redis-node-3',
    ]);
    for (const s of Object.values(services)) expect(s.profiles?.length ?? 1).toBe(1);
  });

  it('should build every Rampart service from the Dockerfile', () => {
    const rampart = Object.keys(services).filter((n) => n.startsWith('rampart'));
    expect(rampart).toHaveLength(5);
    for (const n of rampart) {
      expect(services[n]!.build, n).toBe('.');
      expect(existsSync(join(ROOT, 'Dockerfile'))).toBe(true);
    }
  });

  it('should depend only on services that run in the same profile or always', () => {
    for (const [name, s] of Object.entries(services))
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect(services[dep], `${name} → ${dep}`).toBeDefined();
        expect([undefined, profileOf(name)], `${name} → ${dep}`).toContain(profileOf(dep));
        expect(['service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') expect(services[dep]!.healthcheck, dep).toBeDefined();
      }
  });

  it('should mount only files that exist in the repository', () => {
    for (const s of Object.values(services))
      for (const v of s.volumes ?? []) {
        const src = v.split(':')[0]!;
        if (src.startsWith('.')) expect(existsSync(join(ROOT, src)), src).toBe(true);
      }
  });

  it('should give fixed addresses inside the declared subnet', () => {
    const cidr = compose.networks.rampart!.ipam.config[0]!.subnet;
    expect(isValidCidr(cidr)).toBe(true);
    const subnet = new CidrSet([cidr]);
    const fixed = Object.keys(services).filter((n) => address(n));
    expect(fixed.length).toBeGreaterThanOrEqual(5);
    for (const n of fixed) expect(subnet.has(address(n)!), n).toBe(true);
    expect(new Set(fixed.map(address)).size).toBe(fixed.length);
  });

  it('should trust X-Forwarded-For from the proxy alone on the scaled instances', () => {
    const proxy = address('proxy')!;
    for (const n of ['rampart-1', 'rampart-2', 'rampart-3']) {
      const cidrs = services[n]!.environment!.TRUSTED_PROXIES!.split(',');
      for (const c of cidrs) expect(isValidCidr(c), c).toBe(true);
      const trusted = new CidrSet(cidrs);
      expect(trusted.has(proxy), n).toBe(true);
      for (const other of ['redis', 'redis-node-1'])
        expect(trusted.has(address(other)!), `${n} trusts ${other}`).toBe(false);
    }
    expect(services.rampart!.environment!.TRUSTED_PROXIES).toBeUndefined();
  });

  it('should send the proxy to the three scaled instances on their port', () => {
    const conf = read('deploy/nginx/rampart.conf');
    const upstreams = [...conf.matchAll(/^\s*server\s+([\w-]+):(\d+);/gm)].map((m) => [m[1], m[2]]);
    expect(upstreams.map((u) => u[0])).toEqual(['rampart-1', 'rampart-2', 'rampart-3']);
    for (const [name, port] of upstreams) expect(services[name!]!.environment!.PORT).toBe(port);
    // The request target must reach the app unchanged, or signatures would not verify.
    expect(conf).toMatch(/proxy_pass http:\/\/rampart;/);
    expect(conf).toContain('proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;');
  });

  it('should seed the cluster instance with the three cluster nodes, created by the init container', () => {
    const nodes = ['redis-node-1', 'redis-node-2', 'redis-node-3'].map((n) => `${address(n)}:6379`);
    expect(services['rampart-cluster']!.environment!.REDIS_CLUSTER_NODES).toBe(nodes.join(','));
    const init = services['redis-cluster-init']!.command!.join(' ');
    expect(init).toContain(`--cluster create ${nodes.join(' ')}`);
    for (const n of ['redis-node-1', 'redis-node-2', 'redis-node-3'])
      expect(services[n]!.command!.join(' ')).toContain('--cluster-enabled yes');
  });

  it('should check health on real routes and set only variables the service reads', () => {
    const routes = getRoutes();
    const known = variablesRead();
    for (const [name, s] of Object.entries(services)) {
      const hc = s.healthcheck?.test.join(' ') ?? '';
      for (const m of hc.matchAll(/127\.0\.0\.1:\d+(\/[\w/]+)/g))
        expect(routes, name).toContain(m[1]);
      if (name.startsWith('rampart'))
        for (const v of Object.keys(s.environment ?? {}))
          expect(known, `${name}: ${v}`).toContain(v);
    }
  });
});
