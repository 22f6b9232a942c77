import { ConvertDocumentCommand, ReplyOf, SUBJECTS, UploadedDocumentRequest } from '@lib/contracts';
import { MessageBus } from '@lib/messaging';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { InFlightScrapes } from '../sync-scrape/in-flight-scrapes';
import { validated } from '../sync-scrape/scrape-execution';
import { DocumentConversion } from './document-conversion';

/** Message adapter: validate the upload at this edge, read it, pack the (possibly large) result. */
@Controller()
export class DocumentConversionController {
  constructor(
    private readonly conversion: DocumentConversion,
    private readonly inFlight: InFlightScrapes,
    @Inject(MessageBus) private readonly bus: MessageBus,
  ) {}

  @MessagePattern(SUBJECTS.scrape.convertDocument)
  async convert(@Payload() command: ConvertDocumentCommand): Promise<ReplyOf<typeof SUBJECTS.scrape.convertDocument>> {
    return this.inFlight.runOnce(command.request_id, command.call_id, async () => {
      const { facts, result } = await this.conversion.convert(await validated(UploadedDocumentRequest, command.request));
      return { facts, result: await this.bus.pack(result) };
    });
  }
}
