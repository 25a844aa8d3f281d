/**
 * A breaker's scope names whose it is: `<tool>` for the breaker every tenant
 * shares, `<tenant>:<tool>` for a tenant's own (`defaults.per_tenant_breakers`).
 * The Redis store keeps a tenant's own breaker in that tenant's hash slot
 * (redis/keys.ts), so it reads the tenant back out of the scope. Tool names
 * cannot hold a `:` (config schema), so the last `:` splits the two even when
 * a tenant given to the store directly holds one.
 */
export function scopeOf(tool: string, tenant: string | null): string {
  return tenant === null ? tool : `${tenant}:${tool}`;
}

/** The tenant a scope belongs to, or null for a breaker all tenants share. */
export function scopeTenant(scope: string): string | null {
  const at = scope.lastIndexOf(':');
  return at < 0 ? null : scope.slice(0, at);
}
