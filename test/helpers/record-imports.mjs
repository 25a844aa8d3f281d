// `node --import <this file>`: every module the process resolves under node_modules/@opentelemetry/ is appended,
// one URL a line, to the file named by RECORD_IMPORTS (tests check which parts of the SDK a process loaded).
import { register } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { file: process.env.RECORD_IMPORTS } });
