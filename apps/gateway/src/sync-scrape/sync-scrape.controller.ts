import { DownloadRequest, DownloadResultBody, ProxyConfig, ScrapeRequest, ScrapeResultBody } from '@lib/contracts';
import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Access } from '../admission/route-access';
import { SyncScrapeHandler } from './sync-scrape.handler';

@ApiTags('sync')
@ApiBearerAuth()
@ApiExtraModels(ProxyConfig)
@Controller('v1/sync')
export class SyncScrapeController {
  constructor(private readonly handler: SyncScrapeHandler) {}

  @Post('scrape')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary: 'Scrape one URL and return it (spec 2.7). 1 credit in simple mode; infrastructure failures (DNS, connection, timeout, proxy) are not charged, site-level blocks are.',
  })
  @ApiOkResponse({ description: 'The scrape response with timings and guidance; statusCode is the target\'s (0 when it never answered).' })
  @ApiUnprocessableEntityResponse({ description: 'Validation error, or a non-public target (error_code target_blocked).' })
  @ApiForbiddenResponse({ description: 'Country proxy not approved (error_code country_not_approved).' })
  scrape(@Body() body: ScrapeRequest, @Req() request: FastifyRequest): Promise<ScrapeResultBody> {
    return this.handler.scrape(body, request.admission);
  }

  @Post('download')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({ summary: 'Download one file (spec 2.9): base64 content with its detected MIME type. 1 credit when the target answered.' })
  @ApiOkResponse({ description: '{content, contentType, statusCode, message, executionTime}; statusCode 0 when the target never answered (not charged).' })
  download(@Body() body: DownloadRequest, @Req() request: FastifyRequest): Promise<DownloadResultBody> {
    return this.handler.download(body, request.admission);
  }
}
