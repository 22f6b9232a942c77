import { DocumentConversionResult, DocumentConvertOptions, toProblems } from '@lib/contracts';
import { Controller, createParamDecorator, type ExecutionContext, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { AdmittedCall, Caller } from '../admission/caller.decorator';
import { Access } from '../admission/route-access';
import { RequestValidationError, UnsupportedUploadError } from '../gateway.errors';
import { Fails, Returns } from '../openapi/operation-contract';
import { SyncScrapeHandler } from '../sync-scrape/sync-scrape.handler';
import { UploadedDocument } from './document-upload.parser';

/** The file the upload parser read; any other body (JSON, nothing) is not an upload. */
const Upload = createParamDecorator((_: unknown, context: ExecutionContext): UploadedDocument => {
  const body = context.switchToHttp().getRequest<FastifyRequest>().body;
  if (body instanceof UploadedDocument) return body;
  throw new UnsupportedUploadError(
    'Send the file as the raw body with its Content-Type (application/pdf, …, or application/octet-stream with ?filename=), or as multipart/form-data in the field "file".',
  );
});

const DOCUMENT_MEDIA_TYPES = [
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/epub+zip',
  'application/rtf',
  'text/csv',
  'application/octet-stream',
];

@ApiTags('documents')
@ApiBearerAuth()
@Controller('v1/documents')
export class DocumentsController {
  constructor(private readonly handler: SyncScrapeHandler) {}

  @Post('convert')
  @HttpCode(200)
  @Access('client')
  @ApiOperation({
    summary:
      'Convert a document you already have (PDF, DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB, RTF, CSV) to markdown or HTML, as a scrape of its URL would.',
    description:
      'The file is the raw body with its Content-Type (options as query parameters), or multipart/form-data with the file in the field "file" (options as form fields or query parameters). ' +
      'At most DOCUMENT_MAX_BYTES (50 MB): a larger Content-Length is answered 413 document_too_large before the body is read. ' +
      'A credit per page read (slides and sheets are pages; a flowing document a page per 3,000 characters; 2 a scanned page read by OCR with ocr=true), at least 1. ' +
      'A file that is not a document answers 415 unsupported_document; one that cannot be read 422 document_encrypted or document_corrupt, or 413 document_too_large (a zip bomb, a 50,000-page PDF, past its time or memory budget); none of them is charged.',
  })
  @ApiConsumes(...DOCUMENT_MEDIA_TYPES, 'multipart/form-data')
  @ApiBody({
    schema: {
      type: 'string',
      format: 'binary',
      description: 'The file (raw body), or a multipart/form-data form with the field "file" and the options.',
    },
  })
  @Returns(200, DocumentConversionResult, {
    description: 'The document as markdown (or HTML) with what it says of itself and the credits charged.',
  })
  @Fails(
    'document.unsupported',
    'document.too_large',
    'document.encrypted',
    'document.corrupt',
    'scrape.invalid_request',
    'request.invalid',
    'limits.quota_exceeded',
    'transport.worker_lost',
  )
  async convert(
    @Query() query: DocumentConvertOptions,
    @Upload() upload: UploadedDocument,
    @Caller() caller: AdmittedCall,
  ): Promise<DocumentConversionResult> {
    const options = Object.keys(upload.fields).length > 0 ? await formOptions(upload.fields) : query;
    return this.handler.convertDocument(
      {
        bytes_base64: upload.bytes.toString('base64'),
        media_type: upload.mediaType,
        format: options.format ?? query.format,
        pages: options.pages ?? query.pages,
        max_pages: options.max_pages ?? query.max_pages,
        ocr: options.ocr ?? query.ocr,
        filename: upload.filename ?? options.filename ?? query.filename,
      },
      caller,
    );
  }
}

/** A form's fields as options, validated as the query is (a problem is reported at `["body", field]`). */
async function formOptions(fields: Record<string, string>): Promise<DocumentConvertOptions> {
  const options = plainToInstance(DocumentConvertOptions, fields, { enableImplicitConversion: true });
  const errors = await validate(options, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new RequestValidationError(toProblems(errors, ['body']));
  return options;
}
