import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBase64, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { Transform, Type } from 'class-transformer';
import { EngineCommand, DocumentFacts } from '../scrape/scrape-execution.messages';
import { IsPageRanges } from '../scrape/scrape-request-rules';
import { DOCUMENT_MAX_PAGES, flagOf } from './document-terms';

/** What POST /v1/documents/convert is asked, as query parameters (raw body) or form fields (multipart). */
export class DocumentConvertOptions {
  @ApiPropertyOptional({ enum: ['markdown', 'html'], default: 'markdown', description: 'What the document is converted to.' })
  @IsOptional()
  @IsIn(['markdown', 'html'])
  format: 'markdown' | 'html' = 'markdown';

  @ApiPropertyOptional({
    type: 'string',
    example: '1-3,7',
    description: 'The pages (slides, sheets) to read, counted from 1, as for a scrape.',
  })
  @IsOptional()
  @IsString()
  @IsPageRanges()
  pages?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: DOCUMENT_MAX_PAGES, default: DOCUMENT_MAX_PAGES })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(DOCUMENT_MAX_PAGES)
  max_pages?: number;

  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: "Read a scanned PDF's pages by OCR (English), 2 credits a page recognised, as for a scrape.",
  })
  @IsOptional()
  @Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => flagOf(obj[key]))
  @IsBoolean()
  ocr?: boolean;

  @ApiPropertyOptional({
    maxLength: 255,
    example: 'report.docx',
    description: "The file's name: its extension tells the format when the Content-Type is application/octet-stream and the bytes do not.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  filename?: string;
}

/** One uploaded file for scrape-engine to read (the gateway has bounded its size). */
export class UploadedDocumentRequest extends DocumentConvertOptions {
  @IsString()
  @IsBase64()
  bytes_base64: string;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  media_type: string | null = null;
}

export class ConvertDocumentCommand extends EngineCommand {}

/** POST /v1/documents/convert's answer. */
export class DocumentConversionResult {
  @ApiProperty({ description: "The media type of the format read (the upload's own may be vague).", example: 'application/pdf' })
  content_type: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'With format=markdown: the document, with a `<!-- page N -->` marker before each page.',
  })
  markdown: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'With format=html.' })
  html: string | null;
  @ApiProperty({ type: DocumentFacts })
  @ValidateNested()
  @Type(() => DocumentFacts)
  document: DocumentFacts;
  @ApiProperty({ type: [String], description: 'The http(s) links of the pages read.' })
  links: string[];
  @ApiProperty({
    type: [String],
    description: 'What was left out and why (a cut at max_pages or at the time budget, a scan that needs OCR).',
  })
  notes: string[];
  @ApiProperty({ type: 'integer', description: 'A credit per page read (per 3,000 characters for a flowing document), at least 1.' })
  credits_charged: number;
  @ApiProperty({ type: 'integer', description: 'Milliseconds the reading took.' })
  execution_ms: number;
}

/** A conversion's fields beside the bytes: what the engine validates at its edge. */
export const UPLOAD_LIMITS = { maxFieldBytes: 1000, maxFields: 10 } as const;
