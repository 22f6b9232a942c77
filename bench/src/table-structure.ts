import { distance } from 'fastest-levenshtein';

/**
 * Table structure scored as opendataloader-bench scores it: TEDS, tree-edit-distance similarity
 * (Zhong et al., 2020) between a table as the truth has it and as a reader gave it, each a tree
 * table → rows → cells with the cells' text. Insertions and deletions cost 1; a cell renamed
 * costs its text's normalised edit distance (so a cell with a typo is nearly right, a missing row
 * costs its cells). 1 − distance ÷ the larger tree's size. The edit distance is Zhang–Shasha's.
 */
export type Table = string[][];

interface TreeNode {
  label: string;
  text: string;
  children: TreeNode[];
}

/**
 * Every GFM pipe table of a markdown text, as rows of cells' text (the delimiter row left out):
 * a cell's inline markup is not its text (a PDF keeps a link's words, not its target), and a row
 * with no text in any cell is no row (pandoc gives a table without a header an empty one); a table
 * with no text at all (a row of pictures) is none.
 */
export function markdownTables(markdown: string): Table[] {
  const tables: Table[] = [];
  let rows: string[][] | null = null;
  for (const line of markdown.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('|') && trimmed.endsWith('|') && trimmed.length > 1) {
      const cells = trimmed
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cellText(cell.replace(/<br\s*\/?>/g, ' ')));
      if (cells.every((cell) => /^:?-{3,}:?$/.test(cell))) continue;
      rows ??= [];
      if (cells.some((cell) => cell !== '')) rows.push(cells);
    } else if (rows) {
      if (rows.length > 0) tables.push(rows);
      rows = null;
    }
  }
  if (rows && rows.length > 0) tables.push(rows);
  return tables;
}

/** A table cell's text without inline markdown: what a spreadsheet cell would hold, or a PDF show. */
export function cellText(cell: string): string {
  return cell
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1')
    .trim();
}

/** TEDS of two tables: 1 when they are the same, 0 when nothing of one is in the other. */
export function teds(truth: Table, got: Table): number {
  const a = treeOf(truth);
  const b = treeOf(got);
  const size = Math.max(sizeOf(a), sizeOf(b));
  return size === 0 ? 1 : Math.max(0, 1 - treeEditDistance(a, b) / size);
}

/**
 * A document's table score: each truth table against the reader's table in the same place (in
 * order), a missing one 0; the mean. null when the truth has no table.
 */
export function tableScore(truthMarkdown: string, gotMarkdown: string): number | null {
  const truth = markdownTables(truthMarkdown);
  if (truth.length === 0) return null;
  const got = markdownTables(gotMarkdown);
  return truth.reduce((sum, table, i) => sum + (got[i] ? teds(table, got[i]) : 0), 0) / truth.length;
}

function treeOf(table: Table): TreeNode {
  return {
    label: 'table',
    text: '',
    children: table.map((row) => ({
      label: 'tr',
      text: '',
      children: row.map((cell) => ({ label: 'td', text: normal(cell), children: [] })),
    })),
  };
}

function normal(text: string): string {
  return text.replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

function sizeOf(node: TreeNode): number {
  return 1 + node.children.reduce((sum, child) => sum + sizeOf(child), 0);
}

function renameCost(a: TreeNode, b: TreeNode): number {
  if (a.label !== b.label) return 1;
  if (a.label !== 'td') return 0;
  if (a.text === b.text) return 0;
  return distance(a.text, b.text) / Math.max(a.text.length, b.text.length);
}

/** Zhang–Shasha over post-ordered nodes with their leftmost leaves and key roots. */
function treeEditDistance(a: TreeNode, b: TreeNode): number {
  const A = postOrder(a);
  const B = postOrder(b);
  const treeDistance: number[][] = Array.from({ length: A.nodes.length }, () => new Array<number>(B.nodes.length).fill(0));
  for (const i of A.keyRoots)
    for (const j of B.keyRoots) {
      const li = A.leftmost[i]!;
      const lj = B.leftmost[j]!;
      const rows = i - li + 2;
      const cols = j - lj + 2;
      const forest: number[][] = Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
      for (let x = 1; x < rows; x += 1) forest[x]![0] = forest[x - 1]![0]! + 1;
      for (let y = 1; y < cols; y += 1) forest[0]![y] = forest[0]![y - 1]! + 1;
      for (let x = 1; x < rows; x += 1)
        for (let y = 1; y < cols; y += 1) {
          const ni = li + x - 1;
          const nj = lj + y - 1;
          if (A.leftmost[ni] === li && B.leftmost[nj] === lj) {
            forest[x]![y] = Math.min(
              forest[x - 1]![y]! + 1,
              forest[x]![y - 1]! + 1,
              forest[x - 1]![y - 1]! + renameCost(A.nodes[ni]!, B.nodes[nj]!),
            );
            treeDistance[ni]![nj] = forest[x]![y]!;
          } else {
            const px = A.leftmost[ni]! - li;
            const py = B.leftmost[nj]! - lj;
            forest[x]![y] = Math.min(forest[x - 1]![y]! + 1, forest[x]![y - 1]! + 1, forest[px]![py]! + treeDistance[ni]![nj]!);
          }
        }
    }
  return treeDistance[A.nodes.length - 1]![B.nodes.length - 1]!;
}

function postOrder(root: TreeNode): { nodes: TreeNode[]; leftmost: number[]; keyRoots: number[] } {
  const nodes: TreeNode[] = [];
  const leftmost: number[] = [];
  const visit = (node: TreeNode): number => {
    let first = -1;
    for (const child of node.children) {
      const childLeftmost = visit(child);
      if (first === -1) first = childLeftmost;
    }
    nodes.push(node);
    const index = nodes.length - 1;
    leftmost[index] = first === -1 ? index : first;
    return leftmost[index]!;
  };
  visit(root);
  // A key root: the highest node of each leftmost leaf (no later node shares its leftmost).
  const seen = new Set<number>();
  const keyRoots: number[] = [];
  for (let i = nodes.length - 1; i >= 0; i -= 1)
    if (!seen.has(leftmost[i]!)) {
      seen.add(leftmost[i]!);
      keyRoots.push(i);
    }
  return { nodes, leftmost, keyRoots: keyRoots.sort((x, y) => x - y) };
}
