// Module customization hooks for record-imports.mjs; they run on Node's hooks thread.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (file && resolved.url.includes('/node_modules/@opentelemetry/')) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
