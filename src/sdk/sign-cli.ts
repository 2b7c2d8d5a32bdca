#!/usr/bin/env node
// `npm run --silent sign -- <METHOD> <URL> [body-file]`: the CLI reads its own environment (it is a client tool, not the service).
import { readFileSync } from 'node:fs';
import { runSignCli } from './run-sign-cli.js';

process.exitCode = runSignCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readFile: (path) => readFileSync(path === '-' ? 0 : path),
});
