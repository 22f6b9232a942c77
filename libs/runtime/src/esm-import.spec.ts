import { importEsm } from './esm-import';

describe(importEsm.name, () => {
  it('loads an ESM-only package', async () => {
    const mod = await importEsm<{ gotScraping: unknown }>('got-scraping');
    expect(typeof mod.gotScraping).toBe('function');
  });
});
