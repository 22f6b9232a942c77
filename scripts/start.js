#!/usr/bin/env node
'use strict';
// `npm start`: build if needed, then run the whole platform in this same process.
require('./build').ensureBuilt({ ifNeeded: true });
require('../dist/apps/platform/src/main.js');
