import fs from 'node:fs';
import { describeApi } from './api-description';
it('writes', async () => { fs.writeFileSync('/tmp/probe/openapi.json', JSON.stringify(await describeApi(), null, 2)); });
