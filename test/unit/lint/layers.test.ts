import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The import-direction messages lint gives `code` as if it were the file at `filePath`. */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('imports point one way: http → pipeline → registry/tools/state/spill → protocol', () => {
  it.each([
    ['src/config/x.ts', "import type { PipelineDeps } from '../pipeline/types.js';"],
    ['src/protocol/x.ts', "import type { Tool } from '../tools/tool.js';"],
    ['src/protocol/calls/x.ts', "import type { Config } from '../../config/schema.js';"],
    ['src/state/memory/x.ts', "import type { Tool } from '../../tools/tool.js';"],
    ['src/spill/x.ts', "import type { StateStore } from '../state/state-store.js';"],
    ['src/audit/x.ts', "import type { PipelineDeps } from '../pipeline/types.js';"],
    ['src/tools/builtin/x.ts', "import { executeCalls } from '../../pipeline/execute-calls.js';"],
    ['src/registry/dialects/x.ts', "import { executeRoutes } from '../../http/execute.js';"],
    ['src/pipeline/gates/x.ts', "import { installErrorHandling } from '../../http/errors.js';"],
    ['src/http/x.ts', "import { buildApp } from '../app.js';"],
    ['src/shared/x.ts', "import type { ErrorCode } from '../protocol/errors.js';"],
  ])('%s may not import %s', async (filePath, code) => {
    expect(await layerErrors(filePath, `${code}\nexport {};\n`)).toHaveLength(1);
  });

  it.each([
    ['src/http/x.ts', "import { executeCalls } from '../pipeline/execute-calls.js';"],
    ['src/pipeline/gates/x.ts', "import type { Tool } from '../../tools/tool.js';"],
    ['src/state/memory/x.ts', "import type { Clock } from '../../shared/clock.js';"],
    ['src/config/x.ts', "import { patternProblem } from '../policy/index.js';"],
    ['src/tools/http/x.ts', "import { GatewayError } from '../../protocol/errors.js';"],
    ['src/protocol/calls/x.ts', "import { isRecord } from '../json.js';"],
    ['src/app.ts', "import { executeRoutes } from './http/execute.js';"],
  ])('%s may import %s', async (filePath, code) => {
    expect(await layerErrors(filePath, `${code}\nexport {};\n`)).toEqual([]);
  });
});
