import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPS_FILES, readDashboard } from '../../helpers/ops.js';

const root = new URL('../../../', import.meta.url);
const text = (path: string) => readFile(new URL(path, root), 'utf8');
const compose = async () => parse(await text('docker-compose.yml'), { merge: true }).services as Record<string, any>;
const yamlOf = async (url: URL) => parse(await readFile(url, 'utf8'));

/** Where compose mounts a repository path inside a service, e.g. ./docker/prometheus → /etc/prometheus. */
function mountOf(service: { volumes?: string[] }, source: string): string | undefined {
  return service.volumes?.map((v) => v.split(':')).find(([from]) => from === source)?.[1];
}

/**
 * What can be checked without a Docker engine (the Prometheus
 * test, test/integration/ops/, checks the queries themselves; the compose
 * file is validated by docker-compose there too).
 */
describe('docker/Dockerfile', () => {
  it('runs on a pinned Node LTS slim image, as a non-root user, with production dependencies from the lockfile', async () => {
    const dockerfile = await text('docker/Dockerfile');
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    const major = /^node:(\d+)\.\d+\.\d+-slim$/.exec(image ?? '')?.[1];
    expect(major, image).toBeDefined();
    // End of life of the LTS lines, from the Node.js release schedule; a major missing here is not an LTS line we checked.
    const endOfLife: Record<string, string> = { '20': '2026-04-30', '22': '2027-04-30', '24': '2028-04-30', '26': '2029-04-30' };
    expect(endOfLife[major!], `node ${major} is not a known LTS line`).toBeDefined();
    expect(new Date(endOfLife[major!]!).getTime(), `node ${major} is past its end of life`).toBeGreaterThan(Date.now());
    expect(dockerfile.match(/^FROM \$\{NODE_IMAGE\}/gm)).toHaveLength(2);
    expect(dockerfile).toContain('RUN npm ci --omit=dev');
    expect(dockerfile).not.toMatch(/npm (install|prune)/);
    const stages = dockerfile.split(/^FROM /m);
    expect(stages.at(-1)).toMatch(/^USER node$/m);
    expect(stages.at(-1)).not.toMatch(/COPY --from=build \/app\/node_modules/);
  });

  it('checks /readyz, and labels the image with its source and the package version', async () => {
    const dockerfile = await text('docker/Dockerfile');
    expect(dockerfile).toMatch(/^HEALTHCHECK [^\n]*(\\\n[^\n]*)*\/readyz/m);
    const version = JSON.parse(await text('package.json')).version as string;
    expect(dockerfile).toContain(`ARG VERSION=${version}`);
    expect(dockerfile).toContain('org.opencontainers.image.version="${VERSION}"');
    expect(dockerfile).toContain('org.opencontainers.image.source="${SOURCE_URL}"');
    expect((await compose())['toolgate-a'].build.args.VERSION).toBe(version);
  });
});

describe('docker-compose.yml: the local stack', () => {
  it('pins every image to a release, never a floating tag', async () => {
    const images = Object.values(await compose()).flatMap((s) => (s.image ? [s.image as string] : []));
    expect(images.length).toBeGreaterThanOrEqual(6);
    // A version with at least major.minor.patch (or MinIO's RELEASE.<date>), never latest, a bare major or a major.minor.
    for (const image of images) expect(image, image).toMatch(/:(v?\d+\.\d+\.\d+(-[\w.]+)?|RELEASE\.[\w-]+)$/);
  });

  it('persists Redis in an append-only file on a volume', async () => {
    const redis = (await compose()).redis;
    expect(redis.command.join(' ')).toContain('--appendonly yes');
    expect(redis.volumes).toContain('redis:/data');
  });

  it('puts both replicas behind HAProxy: least connections, health-checked on /readyz, on the published port 8080', async () => {
    const services = await compose();
    const replicas = Object.keys(services).filter((name) => name.startsWith('toolgate-'));
    expect(replicas).toEqual(['toolgate-a', 'toolgate-b']);
    for (const name of replicas) expect(services[name].ports).toEqual([]);
    expect(services.lb.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(mountOf(services.lb, './docker/haproxy/haproxy.cfg')).toBe('/usr/local/etc/haproxy/haproxy.cfg');
    const cfg = await text('docker/haproxy/haproxy.cfg');
    const backend = cfg.split(/^backend toolgate$/m)[1]!;
    expect(backend).toMatch(/^\s+balance leastconn$/m);
    expect(backend).toMatch(/^\s+http-check send meth GET uri \/readyz$/m);
    expect(backend).toMatch(/^\s+default-server check /m);
    expect([...backend.matchAll(/^\s+server (\S+) (\S+):(\d+)$/gm)].map((m) => [m[1], m[2], m[3]])).toEqual(
      replicas.map((r) => [r, r, '8080']),
    );
  });

  it('Prometheus scrapes every replica and the workers on METRICS_PORT, with the alert rules loaded', async () => {
    const services = await compose();
    const port = services['toolgate-a'].environment.METRICS_PORT as string;
    expect(services.worker.environment.METRICS_PORT).toBe(port);
    expect(mountOf(services.prometheus, './docker/prometheus')).toBe('/etc/prometheus');
    expect(services.prometheus.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    const config = await yamlOf(OPS_FILES.prometheus);
    expect(config.rule_files).toEqual(['alerts.yml']);
    const jobs = Object.fromEntries(config.scrape_configs.map((c: any) => [c.job_name, c]));
    expect(jobs.toolgate.static_configs[0].targets).toEqual(['toolgate-a', 'toolgate-b'].map((r) => `${r}:${port}`));
    expect(jobs['toolgate-worker'].dns_sd_configs[0]).toMatchObject({ names: ['worker'], type: 'A', port: Number(port) });
  });

  it('Grafana gets the Prometheus datasource and the toolgate dashboard by provisioning', async () => {
    const services = await compose();
    expect(mountOf(services.grafana, './docker/grafana/provisioning')).toBe('/etc/grafana/provisioning');
    const dashboardsDir = mountOf(services.grafana, './docker/grafana/dashboards');
    const provider = (await yamlOf(OPS_FILES.dashboardsProvider)).providers[0];
    expect(provider).toMatchObject({ type: 'file', options: { path: dashboardsDir } });
    const datasource = (await yamlOf(OPS_FILES.datasources)).datasources[0];
    expect(datasource).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090', uid: 'toolgate-prometheus' });
    // $__rate_interval is four of these: it must be the scrape interval.
    expect(datasource.jsonData.timeInterval).toBe((await yamlOf(OPS_FILES.prometheus)).global.scrape_interval);
  });
});

describe('the toolgate dashboard (docker/grafana/dashboards/toolgate.json)', () => {
  it('every panel queries the provisioned datasource and has at least one query', async () => {
    const uid = (await yamlOf(OPS_FILES.datasources)).datasources[0].uid;
    const dashboard = await readDashboard();
    expect(dashboard.panels.length).toBeGreaterThanOrEqual(15);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const panel of dashboard.panels) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid });
      expect(panel.description, panel.title).toBeTruthy();
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) {
        expect(target.datasource, panel.title).toEqual({ type: 'prometheus', uid });
        expect(target.expr, panel.title).toMatch(/\S/);
        expect(target.refId, panel.title).toMatch(/^[A-Z]$/);
      }
    }
  });

  it('has the panels the operators need, each explained in docs/operations.md', async () => {
    const dashboard = await readDashboard();
    const exprs = dashboard.panels.flatMap((p) => p.targets!.map((t) => t.expr!)).join('\n');
    for (const metric of [
      'toolgate_tool_calls_total',
      'toolgate_tool_duration_seconds_bucket',
      'toolgate_breaker_state',
      'code="RATE_LIMITED"',
      'toolgate_approvals_pending',
      'toolgate_spilled_bytes_total',
      'toolgate_spill_failures_total',
      'toolgate_store_up',
      'toolgate_async_jobs',
      'toolgate_async_callback_deliveries_total',
      'toolgate_http_requests_total',
      'toolgate_http_request_duration_seconds_bucket',
      'toolgate_process_cpu_seconds_total',
      'toolgate_process_resident_memory_bytes',
      'toolgate_nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(exprs).toContain(metric);
    }
    const docs = await text('docs/operations.md');
    for (const panel of dashboard.panels) expect(docs, panel.title).toContain(`**${panel.title}**`);
  });
});

describe('the alert rules (docker/prometheus/alerts.yml)', () => {
  it('the six alerts, each with a severity, a summary and a runbook in docs/operations.md', async () => {
    const rules = (await yamlOf(OPS_FILES.alerts)).groups.flatMap((g: any) => g.rules);
    expect(rules.map((r: any) => r.alert)).toEqual([
      'ToolgateBreakerOpen',
      'ToolgateStateStoreUnavailable',
      'ToolgateSpillFailures',
      'ToolgateHighErrorRate',
      'ToolgateQueueBacklogGrowing',
      'ToolgateReplicaDown',
    ]);
    expect(rules.find((r: any) => r.alert === 'ToolgateBreakerOpen').for).toBe('5m');
    const docs = await text('docs/operations.md');
    for (const rule of rules) {
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
      expect(rule.annotations.runbook).toBe(`docs/operations.md#${rule.alert.toLowerCase()}`);
      expect(docs, rule.alert).toMatch(new RegExp(`^### ${rule.alert}$`, 'm'));
    }
  });
});
