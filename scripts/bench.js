#!/usr/bin/env node
'use strict';
// `npm run bench`: build if needed, then run the benchmark suite in this same process.
require('./build').ensureBuilt({ ifNeeded: true });
require('../dist/bench/src/main.js');
