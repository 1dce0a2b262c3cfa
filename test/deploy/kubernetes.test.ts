/**
 * deploy/kubernetes/contract-query-service.yaml: every document valid against Kubernetes's schemas
 * (the kubernetes-models package's validators, made from Kubernetes's OpenAPI document), and the
 * parts that must agree with the image and the service: the image's version, user, port and probe
 * paths, a read-only root, the Ingress's paths, and an environment the service's configuration
 * accepts without a warning.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/config.ts';
import { VERSION } from '../../src/version.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const documents = parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'kubernetes', 'contract-query-service.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, unknown>);
const MODELS: Record<string, new (data: never) => { validate: () => void }> = { Deployment, Service, Ingress };

const byKind = (kind: string) => {
  const found = documents.find((d) => d.kind === kind);
  assert.ok(found, `no ${kind}`);
  return found as never;
};

test('kubernetes: every document is valid against its kind\'s schema', () => {
  assert.deepEqual(documents.map((d) => d.kind), ['Deployment', 'Service', 'Ingress']);
  for (const document of documents) {
    const Model = MODELS[document.kind as string]!;
    assert.doesNotThrow(() => new Model(document as never).validate(), `${document.kind as string}`);
  }
});

test('kubernetes: the schema check catches a wrong document', () => {
  const broken = structuredClone(byKind('Deployment')) as { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } };
  broken.spec.template.spec.containers[0]!.ports = [{ containerPort: 'http' }];
  assert.throws(() => new Deployment(broken as never).validate());
});

test('kubernetes: the Deployment agrees with the image and the service', () => {
  const deployment = byKind('Deployment') as { spec: { template: { spec: Record<string, any> } } };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  assert.match(container.image, new RegExp(`/contract-query-service:${VERSION.replace(/\./g, '\\.')}$`), 'the image of this version');
  assert.equal(container.ports[0].containerPort, 5551);
  assert.equal(container.readinessProbe.httpGet.path, '/health/readiness');
  assert.equal(container.livenessProbe.httpGet.path, '/health/liveness');
  assert.equal(pod.securityContext.runAsUser, 10001);
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(container.securityContext.readOnlyRootFilesystem, true);
  assert.ok(container.volumeMounts.some((m: { mountPath: string }) => m.mountPath === '/data'), 'the data volume');
  // the drain (server.shutdownGrace, 25 s by default) fits in the grace period
  assert.ok(pod.terminationGracePeriodSeconds > 25);
  const env: Record<string, string> = {};
  for (const variable of container.env) env[variable.name] = variable.value ?? 'secret-from-kubernetes';
  const config = loadConfig(env, ROOT);
  assert.deepEqual(config.warnings, []);
  assert.equal(config.externalDatabase, true);
  assert.equal(config.db.username, 'mirror_api');
  assert.equal(config.db.password, 'secret-from-kubernetes');
  assert.equal(config.server.trustProxy, true);
  assert.ok(config.upstream.url);
});

test('kubernetes: the Ingress sends the contract routes here, /contracts/call to web3, the rest to the REST API', () => {
  const ingress = byKind('Ingress') as { spec: { rules: Array<{ http: { paths: Array<{ path: string; pathType: string; backend: { service: { name: string } } }> } }> } };
  const paths = Object.fromEntries(ingress.spec.rules[0]!.http.paths.map((p) => [p.path, `${p.pathType} ${p.backend.service.name}`]));
  const service = byKind('Service') as { metadata: { name: string } };
  assert.deepEqual(paths, {
    '/api/v1/contracts/call': 'Exact mirror-web3',
    '/api/v1/contracts': `Prefix ${service.metadata.name}`,
    '/': 'Prefix mirror-rest',
  });
});
