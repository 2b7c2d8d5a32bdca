/**
 * deploy/k8s/, checked without a cluster: every manifest parses, the
 * kustomization lists them all, selectors and labels agree, probes and
 * ports point at real routes and the port the app listens on, secrets come
 * from the Secret the example defines, the grace period covers the drain,
 * and only variables the service reads are set.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DRAIN_VARIABLES, ROOT, getRoutes, read, variablesRead } from './deploy-files.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DIR = 'deploy/k8s';
const files = readdirSync(join(ROOT, DIR)).filter((f) => f.endsWith('.yaml'));
const docs: Doc[] = files.flatMap((f) =>
  parseAllDocuments(read(`${DIR}/${f}`)).map((d) => {
    expect(d.errors, f).toEqual([]);
    return { ...(d.toJS() as Doc), file: f };
  }),
);
const byKind = (kind: string): Doc => {
  const found = docs.filter((d) => d.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};

describe('Kubernetes example (deploy/k8s)', () => {
  const deployment = byKind('Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const env = Object.fromEntries(
    (container.env as { name: string; value: string }[]).map((e) => [e.name, e.value]),
  );

  it('should hold a Deployment, Service, PodDisruptionBudget and Secret, all listed by the kustomization', () => {
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'Secret']) byKind(kind);
    const k = byKind('Kustomization');
    expect([...k.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
  });

  it('should select the pods by the labels the pod template carries', () => {
    const labels = deployment.spec.template.metadata.labels;
    const matches = (sel: Record<string, string>) =>
      Object.entries(sel).every(([k, v]) => labels[k] === v);
    expect(matches(deployment.spec.selector.matchLabels)).toBe(true);
    expect(matches(byKind('Service').spec.selector)).toBe(true);
    expect(matches(byKind('PodDisruptionBudget').spec.selector.matchLabels)).toBe(true);
    expect(byKind('PodDisruptionBudget').spec.minAvailable).toBeLessThan(deployment.spec.replicas);
  });

  it('should probe liveness on /health/live and readiness on /health/ready, on the port the app listens on', () => {
    const routes = getRoutes();
    expect(container.livenessProbe.httpGet.path).toBe('/health/live');
    expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(container.startupProbe.httpGet.path).toBe('/health/live');
    const port = container.ports.find((p: Doc) => p.name === 'http');
    expect(String(port.containerPort)).toBe(env.PORT);
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      expect(routes).toContain(container[probe].httpGet.path);
      expect(container[probe].httpGet.port).toBe('http');
    }
    expect(byKind('Service').spec.ports[0].targetPort).toBe('http');
  });

  it('should give the drain its time: terminationGracePeriodSeconds ≥ SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS', () => {
    const delay = Number(env.SHUTDOWN_DELAY_MS ?? DRAIN_VARIABLES.SHUTDOWN_DELAY_MS);
    const timeout = Number(env.SHUTDOWN_TIMEOUT_MS ?? DRAIN_VARIABLES.SHUTDOWN_TIMEOUT_MS);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(delay + timeout);
    // The app drains by itself (readiness 503 first, then in-flight requests): no preStop sleep.
    expect(container.lifecycle?.preStop).toBeUndefined();
  });

  it('should take secrets from the Secret, never inline, and mount the apps file from it', () => {
    const secret = byKind('Secret');
    expect(container.envFrom).toEqual([{ secretRef: { name: secret.metadata.name } }]);
    const keys = Object.keys(secret.stringData);
    for (const k of [
      'ADMIN_TOKEN',
      'REDIS_URL',
      'RATE_LIMIT_KEY_SECRET',
      'INFERENCE_UPSTREAM_API_KEY',
    ])
      expect(keys).toContain(k);
    for (const name of Object.keys(env)) expect(name).not.toMatch(/TOKEN|SECRET|KEY|PASSWORD/);
    const apps = pod.volumes.find((v: Doc) => v.name === 'apps');
    expect(apps.secret.secretName).toBe(secret.metadata.name);
    const mount = container.volumeMounts.find((m: Doc) => m.name === 'apps');
    expect(env.APPS_FILE).toBe(`${mount.mountPath}/${apps.secret.items[0].path}`);
    expect(keys).toContain(apps.secret.items[0].key);
  });

  it('should run as the image user, read-only, with a writable data directory for the search index', () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    const data = container.volumeMounts.find((m: Doc) => m.name === 'data');
    expect(env.SEARCH_SQLITE_PATH.startsWith(`${data.mountPath}/`)).toBe(true);
  });

  it('should set only variables the service reads (the Secret included)', () => {
    const known = variablesRead();
    const secretVars = Object.keys(byKind('Secret').stringData).filter((k) =>
      /^[A-Z0-9_]+$/.test(k),
    );
    for (const v of [...Object.keys(env), ...secretVars]) expect(known, v).toContain(v);
  });
});
