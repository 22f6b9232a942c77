import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Access } from '../admission/route-access';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** Serves the document built once at start-up (see openapi-document.ts). */
@ApiExcludeController()
@Controller('v1')
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: { current: object | null }) {}

  @Get('openapi.json')
  @Access('public')
  get(): object {
    return this.document.current ?? {};
  }
}
