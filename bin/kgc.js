#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which the setup script runs).
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('kgc is not built yet: run `npm run setup` (or `npm run build`) first.\n');
  process.exit(1);
}
require(entry).main(process.argv);
