import { Type, type Static } from 'typebox';

const AuditObjectSchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'file://<dir> (JSON Lines, rotated by size) or s3://<bucket>/<prefix> (objects of records, reached with the spill settings); default file://./data/audit.',
      }),
    ),
    replica: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_.-]{1,64}$',
        description: "This process's chain; default the host name (a worker's: the host name and -worker).",
      }),
    ),
    rotate_bytes: Type.Optional(
      Type.Integer({
        minimum: 4_096,
        description: 'file://: a chain file past this size is closed and the next one begun; default 64 MiB.',
      }),
    ),
    flush_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000,
        description: "Read-only calls' records are written at most this long after the call; default 200.",
      }),
    ),
    max_pending: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Records held while the store fails; past it the oldest are dropped (counted); default 100000.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `audit`: where the audit trail is written, or `false` for none (docs/audit.md). */
export const AuditSchema = Type.Union([Type.Literal(false), AuditObjectSchema], { default: {} });

/** The audit settings with every default filled in (the schema's union cannot carry them). */
type AuditSettings = Required<Omit<Static<typeof AuditObjectSchema>, 'replica'>> & { replica?: string };

export function auditSettings(audit: false | Static<typeof AuditObjectSchema>): AuditSettings | null {
  if (audit === false) return null;
  return {
    url: audit.url ?? 'file://./data/audit',
    rotate_bytes: audit.rotate_bytes ?? 67_108_864,
    flush_ms: audit.flush_ms ?? 200,
    max_pending: audit.max_pending ?? 100_000,
    ...(audit.replica !== undefined && { replica: audit.replica }),
  };
}
