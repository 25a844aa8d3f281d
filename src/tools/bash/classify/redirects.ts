import type { Node } from 'mvdan-sh';
import { child, type Parsed } from './parser.js';
import { allow, ask, deny, type Verdict } from './verdict.js';
import { literalValue, shellQuote } from './words.js';

const OUTPUT = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** A redirection as policy rules see it, and its class: writing a file is ASK, bash's /dev/tcp and /dev/udp sockets DENY. */
export function judgeRedirect(node: Node, parsed: Parsed): { text: string; verdict: Verdict; reads?: string } {
  const word = child(node, 'Word')!;
  const written = parsed.between(node.Pos().Offset(), word.Pos().Offset()).trim();
  const op = written.replace(/^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})/, '');
  const target = literalValue(word);
  const text = `${written}${target === undefined ? parsed.source(word) : shellQuote(target)}`;
  if (op === '<<' || op === '<<-' || op === '<<<') return { text, verdict: allow('feeds text to the command') };
  if (target === undefined) return { text, verdict: ask('redirects to a file named at run time') };
  if (/^\/dev\/(tcp|udp)\//.test(target)) return { text, verdict: deny(`${target} opens a network connection`) };
  if (op === '<') return { text, verdict: allow('reads a file'), reads: target };
  if ((op === '>&' || op === '<&') && /^([0-9]+-?|-)$/.test(target)) return { text, verdict: allow('duplicates a descriptor') };
  // `>&file` is `&>file`.
  if (OUTPUT.has(op) || op === '>&') {
    return {
      text,
      verdict: SINKS.has(target) || /^\/dev\/fd\/[0-9]+$/.test(target) ? allow('discards or passes output') : ask(`writes to ${target}`),
    };
  }
  return { text, verdict: ask(`a redirection the classifier does not know (${op})`) };
}
