import { parseArgs } from 'node:util';
import { createHttpDispatchers } from '../tools/http/index.js';
import { checkOpenApi } from './openapi-check.js';

const USAGE = 'usage: toolgate openapi check <file-or-url> [--base-url URL] [--prefix P] [--allow-private-network] [--json]';
const SOURCE_LABEL = /^openapi_sources\.check: /;

/**
 * `toolgate openapi check`: load one document as an `openapi_sources` entry (no gateway, no config file) and print the tools it gives, each
 * operation left out with why, each served with its schema changed with what, what would refuse the document, GET /tools's size in each
 * format and the providers' limits it is over. Exit 0 when it gives at least one tool and nothing refuses it, 1 otherwise, 2 on a usage
 * error.
 */
export async function openapiCheck(argv: string[], out: (line: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        prefix: { type: 'string' },
        'allow-private-network': { type: 'boolean' },
        json: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (err) {
    out(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    out(USAGE);
    return 2;
  }
  const dispatchers = createHttpDispatchers();
  try {
    const check = await checkOpenApi(positionals[0]!, {
      dispatchers,
      baseDir: process.cwd(),
      baseUrl: values['base-url'],
      prefix: values.prefix,
      allowPrivateNetwork: values['allow-private-network'],
    });
    const skipped = check.verdicts.flatMap((v) => (v.reason !== undefined ? [`${v.label}: ${v.reason}`] : []));
    const changed = check.verdicts.flatMap((v) => (v.tool ? v.notes.map((note) => `${v.tool!.name}: ${note}`) : []));
    const problems = check.problems.map((line) => line.replace(SOURCE_LABEL, ''));
    if (values.json) {
      out(JSON.stringify({ tools: check.tools.map((t) => t.name), skipped, changed, problems, sizes: check.sizes, limits: check.limits }));
    } else {
      const section = (title: string, lines: string[]) =>
        lines.length > 0 && out(`${title}\n${lines.map((line) => `  ${line}`).join('\n')}`);
      out(`${positionals[0]}: ${check.tools.length} tools, ${skipped.length} operations left out`);
      section(
        'tools:',
        check.tools.map((t) => `${t.name} (${Object.keys((t.parameters.properties as object | undefined) ?? {}).length} arguments)`),
      );
      section('left out:', skipped);
      section('served with its schema changed:', changed);
      section('problems (the gateway would refuse the document):', problems);
      section(
        'GET /tools size in bytes:',
        Object.entries(check.sizes).map(([format, bytes]) => `${format}: ${bytes}`),
      );
      section('limits:', check.limits);
    }
    return check.tools.length > 0 && check.problems.length === 0 ? 0 : 1;
  } finally {
    await Promise.all([dispatchers.guarded.close(), dispatchers.open.close()]);
  }
}
