import type { RunningPlatform } from '../../apps/platform/src/platform';

/** The client every bench measures as: an enterprise plan with a rate limit no bench reaches. */
export async function createBenchClient(platform: Pick<RunningPlatform, 'url' | 'bootstrapTokens'>): Promise<{ token: string }> {
  const admin = platform.bootstrapTokens.find((t) => t.clientId === 'admin')!.token!;
  const response = await fetch(`${platform.url}/v1/admin/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'enterprise', rate_limit_per_minute: 1_000_000 }),
  });
  if (!response.ok) throw new Error(`creating the bench client: ${response.status} ${await response.text()}`);
  return response.json() as Promise<{ token: string }>;
}
