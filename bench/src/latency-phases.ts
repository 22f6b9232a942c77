/**
 * Issue 41: where one scrape's milliseconds go. Sequential scrapes of one page; each answer's
 * Server-Timing header (apps/gateway/src/admission/phase-timings.ts) splits the gateway's time
 * into admission, validation, hold, bus (both ways), engine, charge and respond; what the client
 * measured beyond the gateway's total is `http` (the connection, the request and response bytes,
 * fastify's routing before the first hook and serialising after the last). Medians per phase, and
 * their sum against the median wall time: the table must explain the wall, not leave a remainder.
 */
export interface PhaseTable {
  samples: number;
  wallP50Ms: number;
  phasesP50Ms: Record<string, number>;
  /** Sum of the phase medians ÷ the median wall time (1 = fully attributed). */
  attributed: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

function parseServerTiming(header: string | null): Record<string, number> {
  const phases: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const match = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
    if (match) phases[match[1]] = Number(match[2]);
  }
  return phases;
}

export async function phaseTable(
  baseUrl: string,
  token: string,
  pageUrl: string,
  format: 'html' | 'markdown',
  samples: number,
): Promise<PhaseTable> {
  const once = async () => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/v1/sync/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: pageUrl, format }),
    });
    await response.arrayBuffer();
    const wall = performance.now() - started;
    if (!response.ok) throw new Error(`scrape answered ${response.status}`);
    const phases = parseServerTiming(response.headers.get('server-timing'));
    const { total, ...rest } = phases;
    return { wall, phases: { ...rest, http: Math.max(0, wall - (total ?? 0)) } };
  };
  for (let i = 0; i < 10; i += 1) await once();
  const runs: Array<{ wall: number; phases: Record<string, number> }> = [];
  for (let i = 0; i < samples; i += 1) runs.push(await once());
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.phases)))];
  const phasesP50Ms = Object.fromEntries(names.map((name) => [name, round2(median(runs.map((r) => r.phases[name] ?? 0)))]));
  const wallP50Ms = round2(median(runs.map((r) => r.wall)));
  const sum = Object.values(phasesP50Ms).reduce((a, b) => a + b, 0);
  return { samples, wallP50Ms, phasesP50Ms, attributed: Math.round((sum / wallP50Ms) * 100) / 100 };
}

/** "admission 0.2 · validation 1.1 · …" for a bench row's detail. */
export function describePhases(table: PhaseTable): string {
  return Object.entries(table.phasesP50Ms)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(' · ');
}
