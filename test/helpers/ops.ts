import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

/** The repository's monitoring files: one source for the compose stack, the structural tests and the Prometheus test. */
export const OPS_FILES = {
  prometheus: new URL('../../docker/prometheus/prometheus.yml', import.meta.url),
  alerts: new URL('../../docker/prometheus/alerts.yml', import.meta.url),
  dashboard: new URL('../../docker/grafana/dashboards/toolgate.json', import.meta.url),
  datasources: new URL('../../docker/grafana/provisioning/datasources/prometheus.yml', import.meta.url),
  dashboardsProvider: new URL('../../docker/grafana/provisioning/dashboards/toolgate.yml', import.meta.url),
};

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: { type?: string; uid?: string };
  targets?: Array<{ refId?: string; expr?: string; datasource?: { type?: string; uid?: string } }>;
}

export async function readDashboard(): Promise<{ uid: string; title: string; panels: DashboardPanel[] }> {
  return JSON.parse(await readFile(OPS_FILES.dashboard, 'utf8'));
}

/** Every query of every panel, as `panel title / refId`. */
export async function dashboardQueries(): Promise<Array<{ name: string; expr: string }>> {
  const dashboard = await readDashboard();
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((t) => ({ name: `${panel.title} / ${t.refId}`, expr: t.expr ?? '' })),
  );
}

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export async function alertRules(): Promise<AlertRule[]> {
  const file = parse(await readFile(OPS_FILES.alerts, 'utf8')) as { groups: Array<{ rules: AlertRule[] }> };
  return file.groups.flatMap((group) => group.rules);
}

/**
 * Grafana's `$__rate_interval` (four scrape intervals, at least) as the
 * Prometheus test substitutes it: long enough to span the test's traffic.
 */
export function withRateInterval(expr: string, interval: string): string {
  return expr.replaceAll('$__rate_interval', interval);
}
