// Takes gitleaks' published rule file (config/gitleaks.toml) and its license from a gitleaks checkout, at a commit,
// into src/guardrails/vendor/gitleaks/, with that commit in source.json:
//
//   git clone https://github.com/gitleaks/gitleaks /tmp/gitleaks
//   node scripts/update-gitleaks-rules.mjs /tmp/gitleaks [REF]     # REF: a tag or commit; default HEAD
//   npm run build && npx vitest run test/unit/guardrails           # every rule must compile; the tests say what changed
//
// A rule the gateway cannot compile stops start-up naming it, so a file that does not pass the tests is not shipped.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import console from 'node:console';
import process from 'node:process';
import { URL } from 'node:url';

const [checkout, ref = 'HEAD'] = process.argv.slice(2);
if (!checkout) {
  console.error('usage: node scripts/update-gitleaks-rules.mjs GITLEAKS_CHECKOUT [REF]');
  process.exit(2);
}
const git = (...args) => execFileSync('git', ['-C', checkout, ...args], { maxBuffer: 64 * 1024 * 1024 });
const commit = git('rev-parse', `${ref}^{commit}`).toString().trim();
const date = git('show', '-s', '--format=%cI', commit).toString().trim();
const into = (name) => new URL(`../src/guardrails/vendor/gitleaks/${name}`, import.meta.url);
writeFileSync(into('gitleaks.toml'), git('show', `${commit}:config/gitleaks.toml`));
writeFileSync(into('LICENSE'), git('show', `${commit}:LICENSE`));
const source = {
  repository: 'https://github.com/gitleaks/gitleaks',
  path: 'config/gitleaks.toml',
  commit,
  commit_date: date,
  license: 'MIT (LICENSE beside this file)',
};
writeFileSync(into('source.json'), `${JSON.stringify(source, null, 2)}\n`);
console.log(`gitleaks.toml and LICENSE at ${commit} (${date})`);
