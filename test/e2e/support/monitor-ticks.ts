import { eventually } from './eventually';
import { http } from './http';

/** A monitor's ticks, newest first, once at least `n` of them are completed and reported. */
export function completedTicks(baseUrl: string, token: string, monitorId: string, n: number, timeoutMs?: number) {
  return eventually(
    async () => {
      const { body } = await http(baseUrl, `/v1/monitors/${monitorId}/ticks`, { token });
      const done = (body.ticks as Array<{ status: string; changes: number | null }>).filter(
        (t) => t.status === 'completed' && t.changes !== null,
      );
      return done.length >= n ? body.ticks : false;
    },
    { what: `${n} ticks reported`, ...(timeoutMs ? { timeoutMs } : {}) },
  );
}
