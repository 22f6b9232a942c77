import type { MarkdownSource } from '@lib/contracts';
import type { FetchedResponse, SimpleFetcher } from '@lib/http-fetch';
import type { TargetGuard } from '@lib/target-guard';
import { isMarkdownType, type MarkdownAlternate, markdownAlternateOf, siteMarkdownProblem, withMarkdownAccept } from './site-markdown';

/** The site's own markdown, found, with where it came from; or why what was offered is not used. */
export type SiteMarkdown = { markdown: string; source: MarkdownSource } | { fallback: string };

/**
 * prefer_site_markdown's reading (decision 0042): whether a page's answer is the site's markdown
 * (negotiated by Accept), and the markdown alternate an HTML answer links, fetched through the SSRF
 * guard on the page's own host and checked like the answer.
 */
export class SiteMarkdownReader {
  constructor(
    private readonly fetcher: SimpleFetcher,
    private readonly guard: TargetGuard,
    private readonly maxDocumentBytes: number,
  ) {}

  /** A 2xx answer with a markdown type: the site's markdown, or why it is not (HTML under a markdown type…); null for any other answer. */
  answered(response: FetchedResponse): SiteMarkdown | null {
    if (response.statusCode < 200 || response.statusCode >= 300 || !isMarkdownType(response.contentType)) return null;
    const problem = siteMarkdownProblem(response.text);
    return problem === null
      ? { markdown: response.text!, source: siteSource(response.url, 'accept', response.text!, null) }
      : { fallback: problem };
  }

  /** The markdown a 2xx HTML answer links as its alternate (Link header, then <link>); null when it links none. */
  async alternateOf(response: FetchedResponse): Promise<SiteMarkdown | null> {
    if (response.statusCode < 200 || response.statusCode >= 300) return null;
    const alternate = markdownAlternateOf(response.headers, response.text, response.url);
    if (!alternate) return null;
    const offered = await this.markdownAt(alternate, response.url);
    return typeof offered === 'string'
      ? { markdown: offered, source: siteSource(alternate.url, alternate.offeredBy, offered, response.body.length) }
      : { fallback: offered.reason };
  }

  /**
   * The markdown a page's alternate link names, when it is on the page's own host, passes the SSRF
   * guard, answers 2xx with a markdown (or plain text) type and reads as markdown; else why not.
   */
  private async markdownAt(alternate: MarkdownAlternate, pageUrl: string): Promise<string | { reason: string }> {
    if (new URL(alternate.url).host !== new URL(pageUrl).host) return { reason: 'the markdown alternate is on another host' };
    try {
      const answer = await this.fetcher.fetch(
        { url: alternate.url, headers: withMarkdownAccept(null), maxDocumentBytes: this.maxDocumentBytes },
        await this.guard.vet(alternate.url),
      );
      if (answer.statusCode < 200 || answer.statusCode >= 300) return { reason: `the markdown alternate answered ${answer.statusCode}` };
      if (!isMarkdownType(answer.contentType) && !/^text\/plain\b/i.test(answer.contentType ?? ''))
        return { reason: `the markdown alternate answered ${answer.contentType ?? 'without a Content-Type'}` };
      const problem = siteMarkdownProblem(answer.text);
      return problem === null ? answer.text! : { reason: problem.replace('the site', 'the markdown alternate') };
    } catch (error) {
      return { reason: `the markdown alternate could not be fetched (${error instanceof Error ? error.message : String(error)})` };
    }
  }
}

/** Markdown made from the page's HTML, and why the site's own was not used. */
export function extractedSource(markdown: string | null, htmlBytes: number | null, reason: string): MarkdownSource {
  return {
    source: 'extracted',
    url: null,
    offered_by: null,
    bytes: Buffer.byteLength(markdown ?? ''),
    html_bytes: htmlBytes,
    fallback_reason: reason,
  };
}

function siteSource(
  url: string,
  offeredBy: NonNullable<MarkdownSource['offered_by']>,
  markdown: string,
  htmlBytes: number | null,
): MarkdownSource {
  return { source: 'site', url, offered_by: offeredBy, bytes: Buffer.byteLength(markdown), html_bytes: htmlBytes, fallback_reason: null };
}
