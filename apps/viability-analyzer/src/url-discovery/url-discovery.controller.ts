import { AnalyseUrlCommand, SUBJECTS, ViabilityResult } from '@lib/contracts';
import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ChargedEngineProber } from '../probing/charged-engine-prober';
import { UrlAnalysis } from '../url-analysis/url-analysis';

/**
 * One URL analysed while the caller waits (the agent endpoint's `discover`): the same analysis as a
 * viability run's, nothing stored but the ledger entries, each tagged with the agent call.
 */
@Controller()
export class UrlDiscoveryController {
  constructor(
    private readonly analysis: UrlAnalysis,
    private readonly prober: ChargedEngineProber,
  ) {}

  @MessagePattern(SUBJECTS.viability.analyse)
  async analyse(@Payload() command: AnalyseUrlCommand): Promise<{ verdict: ViabilityResult; credits_charged: number }> {
    const prober = this.prober.for({
      clientId: command.client_id,
      monthlyCredits: command.monthly_credits,
      analysisKey: `discover:${command.request_id}`,
      attempt: 1,
      origin: { discover_request_id: command.request_id },
    });
    const verdict = await this.analysis.analyse(command.url, command.depth, prober);
    return { verdict, credits_charged: prober.creditsCharged() };
  }
}
