/** The optimistic-lock arguments Write and Edit share. */
export const LOCK_PARAMETERS = {
  expected_mtime_ms: {
    type: 'number',
    minimum: 0,
    description:
      "file_mtime_ms from your last Read of this file. Usually leave it out: the gateway fills it in from this session's last Read. " +
      'When the file on disk differs, the call fails with CONFLICT and nothing is written.',
    examples: [1718031234567.123],
  },
  expected_size_bytes: {
    type: 'integer',
    minimum: 0,
    description: 'file_size_bytes from your last Read of this file; filled in by the gateway like expected_mtime_ms.',
    examples: [2048],
  },
} as const;
