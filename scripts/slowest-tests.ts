// The slowest tests and test files of a vitest run, from its JSON report, as Markdown tables:
//   npx vitest run --reporter=default --reporter=json --outputFile.json=report.json
//   npx tsx scripts/slowest-tests.ts report.json [count]
// A test's time is its own (vitest's `duration`, hooks not counted); a file's is from its first
// hook to its last, so a slow beforeAll shows there. `.ci/run` prints both after the tests.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { counted } from '../src/shared/count.js';

const [path, countArg = '10'] = process.argv.slice(2);
const count = Number(countArg);
if (!path || !Number.isInteger(count) || count < 1) {
  console.error('usage: npx tsx scripts/slowest-tests.ts <vitest JSON report> [count, default 10]');
  process.exit(2);
}

/** What this reads of vitest's JSON report (Jest's shape). */
interface Report {
  testResults: Array<{
    name: string;
    startTime: number;
    endTime: number;
    assertionResults: Array<{ fullName: string; duration?: number | null }>;
  }>;
}

const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const fileOf = (name: string) => relative(process.cwd(), name);
const cell = (text: string) => text.replaceAll('|', '\\|');

const tests = report.testResults
  .flatMap((file) => file.assertionResults.map((test) => ({ file: fileOf(file.name), title: test.fullName, ms: test.duration ?? 0 })))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, count);
const files = report.testResults
  .map((file) => ({ file: fileOf(file.name), ms: file.endTime - file.startTime }))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, count);

console.log(`The ${counted(tests.length, 'slowest test')}:\n`);
console.log('| s | test | file |\n|---:|---|---|');
for (const t of tests) console.log(`| ${seconds(t.ms)} | ${cell(t.title)} | ${t.file} |`);
console.log(`\nThe ${counted(files.length, 'slowest file')} (hooks included):\n`);
console.log('| s | file |\n|---:|---|');
for (const f of files) console.log(`| ${seconds(f.ms)} | ${f.file} |`);
