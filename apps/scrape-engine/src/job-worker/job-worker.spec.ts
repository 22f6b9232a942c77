import { TransportTimeoutError } from '@lib/errors';
import type { ClaimJobCommand, ClaimJobReply } from '@lib/contracts';
import type { QueuedJob } from '@lib/messaging';
import { JobWorker } from './job-worker';

type Claim = (job: QueuedJob, ref: ClaimJobCommand) => Promise<ClaimJobReply | null>;

/**
 * A claim sent to an orchestrator that died holding it never gets a reply: it must be asked again
 * of a live one after a short wait, not after the whole claim budget.
 */
describe('JobWorker claims', () => {
  function workerWith(answers: Array<'silence' | ClaimJobReply>) {
    const timeouts: number[] = [];
    const bus = {
      kind: 'nats',
      request: async (_subject: string, _ref: unknown, options: { timeoutMs: number }) => {
        timeouts.push(options.timeoutMs);
        const answer = answers.shift() ?? 'silence';
        if (answer === 'silence') {
          await new Promise((r) => setTimeout(r, options.timeoutMs));
          throw new TransportTimeoutError(`no reply in ${options.timeoutMs} ms`);
        }
        return answer;
      },
    };
    const worker = new JobWorker({} as never, bus as never, {} as never, {} as never, {} as never, {} as never);
    const job = { nak: jest.fn() } as unknown as QueuedJob;
    return { claim: (worker as unknown as { claim: Claim }).claim.bind(worker), job, timeouts };
  }

  const ref = { job_id: 'j', attempt: 1, worker_id: 'w' } as unknown as ClaimJobCommand;

  it('asks again after at most 3 s when a claim gets no reply, and takes the second answer', async () => {
    const claimed = { outcome: 'claimed' } as unknown as ClaimJobReply;
    const { claim, job, timeouts } = workerWith(['silence', claimed]);
    await expect(claim(job, ref)).resolves.toBe(claimed);
    expect(timeouts).toHaveLength(2);
    expect(timeouts[0]).toBeLessThanOrEqual(3_000);
    expect(job.nak).not.toHaveBeenCalled();
  }, 15_000);
});
