import { importEsm } from '@lib/runtime';

type ProxyServer = { listen(): Promise<void>; close(force: boolean): Promise<void>; port: number };
export type ProxyRequest = { username: string; password: string; hostname: string; port: number };

/**
 * Local upstream proxies (proxy-chain) for PROXY_POOL tests: `decide(i, request)` sees every request
 * proxy i receives and answers like a prepareRequestFunction ({} lets it through).
 */
export async function startLocalProxies(
  count: number,
  decide: (index: number, request: ProxyRequest) => object,
): Promise<{ ports: number[]; close(): Promise<void> }> {
  const { Server } = await importEsm<{ Server: new (o: object) => ProxyServer }>('proxy-chain');
  const proxies: ProxyServer[] = [];
  for (let i = 0; i < count; i += 1) {
    const proxy = new Server({ port: 0, host: '127.0.0.1', prepareRequestFunction: (request: ProxyRequest) => decide(i, request) });
    await proxy.listen();
    proxies.push(proxy);
  }
  return {
    ports: proxies.map((p) => p.port),
    close: async () => {
      for (const p of proxies) await p.close(true);
    },
  };
}
