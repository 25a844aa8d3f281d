import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { signature } from '../../../src/webhooks/index.js';

const PAGE = new URL('../../../docs/async.md', import.meta.url);

/** The code blocks of one language in the page's "Verifying a callback" section. */
async function snippet(language: string): Promise<string> {
  const section = (await readFile(PAGE, 'utf8')).split('## Verifying a callback')[1]!.split('\n## ')[0]!;
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section)?.[1];
  if (!block) throw new Error(`docs/async.md has no ${language} block under "Verifying a callback"`);
  return block;
}

function run(command: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim()),
    );
    child.stdin!.end(input);
  });
}

const SECRET = 'whsec-0123456789abcdef';
const BODY = '{"execution_id":"exec_1","status":"completed","results":[{"text":"é ✓"}]}';
/** [body, header] pairs and whether each must verify. */
const CASES: Array<[string, string | null, boolean]> = [
  [BODY, signature(SECRET, BODY), true],
  [`${BODY} `, signature(SECRET, BODY), false],
  [BODY, signature('another-secret-0123', BODY), false],
  [BODY, signature(SECRET, BODY).slice(0, -1), false],
  [BODY, null, false],
];

/** The receiver snippets of docs/async.md accept toolgate's signature, and only it. */
describe('docs/async.md: verifying a callback', () => {
  it('the Node snippet', async () => {
    const program = `${await snippet('js')}
const cases = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map(([body, header]) => verifyToolgateSignature(${JSON.stringify(SECRET)}, Buffer.from(body), header ?? undefined))));`;
    const out = await run(process.execPath, ['-e', program], JSON.stringify(CASES));
    expect(JSON.parse(out)).toEqual(CASES.map((c) => c[2]));
  });

  it('the Python snippet', async () => {
    const program = `${await snippet('python')}
import json, sys
cases = json.load(sys.stdin)
print(json.dumps([verify_toolgate_signature(${JSON.stringify(SECRET)}, body.encode(), header) for body, header, _ in cases]))`;
    const out = await run('python3', ['-c', program], JSON.stringify(CASES));
    expect(JSON.parse(out)).toEqual(CASES.map((c) => c[2]));
  });
});
