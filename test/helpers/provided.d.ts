import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A loopback Redis the whole run shares; isolate by key prefix. */
    redisUrl: string;
    /** The redis-server binary, for tests that start and stop their own; empty when unavailable. */
    redisBinary: string;
    /** A loopback S3-compatible server (s3rver) the whole run shares, its bucket `TEST_BUCKET`; isolate by key prefix. */
    s3Endpoint: string;
  }
}
