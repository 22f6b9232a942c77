import {
  DEFAULT_VIABILITY_DEPTH,
  IsHttpUrlText,
  MAX_VIABILITY_URLS,
  VIABILITY_DEPTHS,
  VIABILITY_PAGE_LIMITS,
  ViabilityDepth,
} from '@lib/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

/** Spec 4.6 body. Each URL must be an http(s) URL; whether it is a public target is the analysis' call (a refused one gets a `blocked` entry). */
export class ViabilityTestBody {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_VIABILITY_URLS,
    example: ['https://example.com/'],
    description: `1 to ${MAX_VIABILITY_URLS} http(s) URLs. Duplicates (the same URL once normalised) are analysed once; results follow the order of first appearance.`,
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'urls must name at least one URL.' })
  @ArrayMaxSize(MAX_VIABILITY_URLS, { message: `urls holds at most ${MAX_VIABILITY_URLS} URLs.` })
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(8192, { each: true })
  @IsHttpUrlText({ each: true })
  urls: string[];

  @ApiPropertyOptional({
    enum: VIABILITY_DEPTHS,
    default: DEFAULT_VIABILITY_DEPTH,
    description:
      'quick: a plain GET and an extraction GET (2 credits a URL at most); standard: + a light-browser render with xhr/fetch capture (7); full: + a heavy-browser render and endpoint replays without cookies (10).',
  })
  @IsOptional()
  @IsIn(VIABILITY_DEPTHS)
  depth?: ViabilityDepth;
}

export class ViabilityListQuery {
  static readonly validationStatus = 400;

  @ApiPropertyOptional({ default: VIABILITY_PAGE_LIMITS.default, minimum: VIABILITY_PAGE_LIMITS.min, maximum: VIABILITY_PAGE_LIMITS.max })
  @IsOptional()
  @IsInt()
  @Min(VIABILITY_PAGE_LIMITS.min)
  @Max(VIABILITY_PAGE_LIMITS.max)
  limit?: number;

  @ApiPropertyOptional({ format: 'uuid', description: 'cursor_next of the previous page.' })
  @IsOptional()
  @IsUUID()
  cursor?: string;
}

/**
 * The target a URL names, for telling two spellings of one URL apart: the WHATWG form (host case,
 * default port, a missing `/`) without the fragment, which never reaches the server. An unparseable
 * URL is its own key (the analysis refuses it).
 */
export function targetKeyOf(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** The URLs once each per target (targetKeyOf), as first written, in order of first appearance. */
export function distinctUrls(urls: string[]): string[] {
  const seen = new Set<string>();
  return urls.filter((url) => {
    const key = targetKeyOf(url);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
