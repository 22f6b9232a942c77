import { DependencyUnavailableError } from '@lib/errors';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags, OpenAPIObject } from '@nestjs/swagger';
import { openObject } from '@lib/contracts';
import { Access } from '../admission/route-access';
import { Returns } from './operation-contract';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** The parts of an OpenAPI 3.0 document a client reads first; the rest is the standard's. */
export class ApiDescriptionBody {
  @ApiProperty({ example: '3.0.0' })
  openapi: string;
  @ApiProperty(openObject('Title, version (0.1.0), description, license.'))
  info: object;
  @ApiProperty(openObject('Every operation with its parameters, body and responses.'))
  paths: object;
  @ApiPropertyOptional(openObject('Schemas, headers and the bearer security scheme.'))
  components?: object;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  servers?: object[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  security?: object[];
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  tags?: object[];
}

/** Serves the document built once at start-up (see openapi-document.ts). */
@ApiTags('meta')
@Controller('v1')
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: { current: OpenAPIObject | null }) {}

  @Get('openapi.json')
  @Access('public')
  @ApiOperation({ summary: 'This OpenAPI 3.0 description of the API (what the SDK is generated from). No authentication.' })
  @Returns(200, ApiDescriptionBody, { description: 'The OpenAPI document.' })
  get(): OpenAPIObject {
    if (!this.document.current) throw new DependencyUnavailableError('The API description is being built; retry in a moment.');
    return this.document.current;
  }
}
