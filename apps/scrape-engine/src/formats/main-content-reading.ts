import type { MainContentReport } from '@lib/contracts';
import type { Node } from 'node-html-parser';
import type { MainContentModel } from './block-model';
import { BLOCK_FEATURES, type ContentBlock, contentBlocksOf, nodesLeftOut } from './content-blocks';
import { type LocatedContent, PAGE_KINDS, type PageKind, type RemovalReason } from './main-content-locator';
import type { ParsedPage } from './parsed-page';

/** What the main-content model made of a page: what to leave out of the body, and what to say about it. */
export interface ModelReading {
  skip: Set<Node>;
  /** The page has no main content (a bare grid, a login wall): the markdown is empty, on purpose. */
  empty: boolean;
  /** A kept block is the page's <h1>: the markdown needs no title of its own. */
  keptTitle: boolean;
  kind: PageKind;
  report: MainContentReport;
}

// The evidence a left-out block carries, in the order a reason is given for it (the first that holds).
const REASON_EVIDENCE: Array<[RemovalReason, string[]]> = [
  ['navigation', ['in_nav', 'named_nav']],
  ['header', ['in_header', 'named_header']],
  ['footer', ['in_footer', 'named_footer']],
  ['banner', ['in_dialog', 'named_overlay', 'named_ad']],
  ['comments', ['named_comments']],
  ['share', ['named_share']],
  ['related', ['named_related']],
  ['sidebar', ['in_aside', 'named_sidebar']],
  ['form', ['in_form']],
];
const REASON_FEATURES = REASON_EVIDENCE.map(([reason, names]) => [reason, names.map((name) => BLOCK_FEATURES.indexOf(name))] as const);
const LINK_DENSITY = BLOCK_FEATURES.indexOf('link_density');
const RULES_SKIPPED = BLOCK_FEATURES.indexOf('rules_skipped');
const NAVIGATION = ['in_nav', 'named_nav'].map((name) => BLOCK_FEATURES.indexOf(name));
// A left-out block with none of the evidence above is counted as links when mostly links, else as other.
const LINKS_SHARE = 0.5;

/**
 * The page's main content as the model reads it (decision 0041): the page's kind by the page-type
 * classifiers, then each block kept when the block model's probability reaches that kind's
 * threshold. null when the model keeps nothing (the rules' reading stands: the model never empties
 * a page the rules found content on).
 */
export function readWithModel(
  page: ParsedPage,
  located: LocatedContent,
  rulesFallback: boolean,
  model: MainContentModel,
): ModelReading | null {
  const { blocks, types, page: pageFeatures } = contentBlocksOf(page.body, located, rulesFallback, page.url, model.pageTypesOf);
  if (blocks.length === 0) return null;
  let best = 0;
  for (let k = 1; k < types.length; k += 1) if (types[k]! > types[best]!) best = k;
  const kind = PAGE_KINDS[best]!;
  const noContent = model.noContentOf(pageFeatures);
  if (noContent !== null) return nothingKept(blocks, kind, noContent, located);
  const threshold = model.thresholdFor(best);
  const probabilities = blocks.map((block) => model.blocks.probability(block.features));
  // Where the rules set a block apart as navigation (a <nav>, a menu by its class), they win: a
  // menu beside an article reads like nothing else, and the model once restored one.
  const kept = keptByList(blocks, probabilities, threshold).map(
    (keep, i) => keep && !(blocks[i]!.features[RULES_SKIPPED] === 1 && NAVIGATION.some((index) => blocks[i]!.features[index] === 1)),
  );
  if (!kept.some(Boolean)) return null;
  const removed: Record<string, number> = {};
  let characters = 0;
  let pageCharacters = 0;
  let sureness = 0;
  blocks.forEach((block, i) => {
    const length = block.text.length;
    pageCharacters += length;
    if (kept[i]) {
      characters += length;
      sureness += probabilities[i]! * length;
      return;
    }
    const reason =
      REASON_FEATURES.find(([, indexes]) => indexes.some((index) => block.features[index] === 1))?.[0] ??
      (block.features[LINK_DENSITY]! >= LINKS_SHARE ? 'links' : 'other');
    removed[reason] = (removed[reason] ?? 0) + length;
  });
  return {
    skip: nodesLeftOut(blocks, kept),
    empty: false,
    keptTitle: blocks.some((block, i) => kept[i] && block.element.rawTagName?.toLowerCase() === 'h1'),
    kind,
    report: {
      evidence: [`model:${kind} ${types[best]!.toFixed(2)}`, ...located.kindEvidence].slice(0, 20),
      confidence: Math.round((sureness / Math.max(1, characters)) * 100) / 100,
      characters,
      page_characters: pageCharacters,
      removed,
      whole_page: characters === pageCharacters,
    },
  };
}

/** A page the model reads as having no main content: everything left out, and the report says so. */
function nothingKept(blocks: ContentBlock[], kind: PageKind, probability: number, located: LocatedContent): ModelReading {
  const pageCharacters = blocks.reduce((sum, block) => sum + block.text.length, 0);
  return {
    skip: nodesLeftOut(
      blocks,
      blocks.map(() => false),
    ),
    empty: true,
    keptTitle: true,
    kind,
    report: {
      evidence: [`model:no-main-content ${probability.toFixed(2)}`, ...located.kindEvidence].slice(0, 20),
      confidence: Math.round(probability * 100) / 100,
      characters: 0,
      page_characters: pageCharacters,
      removed: { no_main_content: pageCharacters },
      whole_page: false,
    },
  };
}

/**
 * Blocks kept at the threshold, a list's items together: an item's own probability says little
 * that its list does not (a menu is not a menu but for its one item that reads like prose), so a
 * list stands or falls by its items' probability weighted by their text.
 */
function keptByList(blocks: ContentBlock[], probabilities: number[], threshold: number): boolean[] {
  const weight = new Map<number, { sum: number; text: number }>();
  blocks.forEach((block, i) => {
    if (block.list < 0) return;
    const list = weight.get(block.list) ?? { sum: 0, text: 0 };
    list.sum += probabilities[i]! * Math.max(1, block.text.length);
    list.text += Math.max(1, block.text.length);
    weight.set(block.list, list);
  });
  return blocks.map((block, i) => {
    const list = block.list < 0 ? undefined : weight.get(block.list);
    return (list ? list.sum / list.text : probabilities[i]!) >= threshold;
  });
}
