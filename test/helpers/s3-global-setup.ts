import type { TestProject } from 'vitest/node';
import { OwnS3 } from './s3.js';

/** One S3-compatible server for the whole run (s3rver, an npm dev dependency: nothing to install); tests isolate by key prefix. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const s3 = await OwnS3.start();
  project.provide('s3Endpoint', s3.endpoint);
  return () => s3.cleanup();
}
