import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { UrlRequired } from '../target-url-rules';
import { ProxyConfig } from './scrape-request';
import { IsProxySelection } from './scrape-request-rules';

/** Spec 2.9 request. */
export class DownloadRequest {
  @ApiProperty({ example: 'https://example.com/report.pdf' })
  @UrlRequired()
  @IsString()
  @MaxLength(8192)
  url: string;

  @ApiPropertyOptional({ oneOf: [{ type: 'string', example: 'any' }, { $ref: '#/components/schemas/ProxyConfig' }], nullable: true })
  @IsOptional()
  @IsProxySelection()
  @Type(() => ProxyConfig)
  use_proxy: string | ProxyConfig | null = null;
}
