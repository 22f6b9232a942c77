// A JSON module, so the build copies it beside the code.
import shippedModelFile from './main-content-model.json';

/**
 * A gradient-boosted tree ensemble as LightGBM trains it (binary objective), read from the flat
 * form scripts/train-main-content writes: per tree, its internal nodes' split feature, threshold
 * and children (a child below zero is leaf ~child), and its leaf values. A feature at or below a
 * node's threshold goes left, as LightGBM decides a numeric split (every feature is numeric and
 * never missing here, so no default direction is needed). Evaluated in float64 like LightGBM,
 * so a block gets the probability the trainer's own predict gives it.
 */
export interface BlockModelFile {
  format: 'lightgbm-flat-1';
  features: string[];
  threshold: number;
  trees: Array<{ feature: number[]; split: number[]; left: number[]; right: number[]; leaf: number[] }>;
}

export class BlockModel {
  readonly features: readonly string[];
  /** A block is main content at or above this probability (chosen in cross-validation). */
  readonly threshold: number;
  // Every tree's nodes in one set of typed arrays: a child at or above zero is a node, below zero ~leaf.
  private readonly feature: Int32Array;
  private readonly split: Float64Array;
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly leaf: Float64Array;
  /** Per tree: its root (a node, or ~leaf for a tree that is one leaf). */
  private readonly roots: Int32Array;

  constructor(file: BlockModelFile) {
    if (file.format !== 'lightgbm-flat-1') throw new Error(`unknown block model format ${String(file.format)}`);
    this.features = file.features;
    this.threshold = file.threshold;
    const nodes = file.trees.reduce((sum, tree) => sum + tree.feature.length, 0);
    const leaves = file.trees.reduce((sum, tree) => sum + tree.leaf.length, 0);
    [this.feature, this.split, this.left, this.right] = [
      new Int32Array(nodes),
      new Float64Array(nodes),
      new Int32Array(nodes),
      new Int32Array(nodes),
    ];
    this.leaf = new Float64Array(leaves);
    this.roots = new Int32Array(file.trees.length);
    let nodeBase = 0;
    let leafBase = 0;
    const child = (c: number) => (c >= 0 ? c + nodeBase : ~(~c + leafBase));
    file.trees.forEach((tree, t) => {
      for (let i = 0; i < tree.feature.length; i += 1) {
        if (tree.feature[i]! < 0 || tree.feature[i]! >= this.features.length)
          throw new Error(`block model tree ${t} reads feature ${tree.feature[i]}`);
        this.feature[nodeBase + i] = tree.feature[i]!;
        this.split[nodeBase + i] = tree.split[i]!;
        this.left[nodeBase + i] = child(tree.left[i]!);
        this.right[nodeBase + i] = child(tree.right[i]!);
      }
      this.leaf.set(tree.leaf, leafBase);
      this.roots[t] = tree.feature.length === 0 ? ~leafBase : nodeBase;
      nodeBase += tree.feature.length;
      leafBase += tree.leaf.length;
    });
  }

  probability(features: ArrayLike<number>): number {
    let raw = 0;
    for (let t = 0; t < this.roots.length; t += 1) {
      let node = this.roots[t]!;
      while (node >= 0) node = features[this.feature[node]!]! <= this.split[node]! ? this.left[node]! : this.right[node]!;
      raw += this.leaf[~node]!;
    }
    return 1 / (1 + Math.exp(-raw));
  }
}

/** The main-content model (decision 0041): per page, a classifier per page kind; per block, the block model reading them. */
export interface MainContentModelFile {
  format: 'main-content-1';
  /** One binary classifier per page kind, in PAGE_KINDS order, over PAGE_FEATURES. */
  pageTypes: BlockModelFile[];
  /** Over BLOCK_FEATURES, whose last features are the page-type classifiers' probabilities. */
  blocks: BlockModelFile;
  /** The block threshold per page kind (the kind the classifiers find likeliest), in PAGE_KINDS order. */
  thresholds: number[];
  /** Over PAGE_FEATURES: the page has no main content (a bare grid, a login wall), above its threshold. */
  noContent: BlockModelFile;
}

export class MainContentModel {
  readonly blocks: BlockModel;
  private readonly pageTypes: BlockModel[];
  private readonly thresholds: readonly number[];
  private readonly noContent: BlockModel;

  constructor(file: MainContentModelFile) {
    if (file.format !== 'main-content-1') throw new Error(`unknown main-content model format ${String(file.format)}`);
    this.thresholds = file.thresholds ?? [];
    this.noContent = new BlockModel(file.noContent);
    this.blocks = new BlockModel(file.blocks);
    this.pageTypes = file.pageTypes.map((model) => new BlockModel(model));
  }

  /** The probability a block must reach on a page whose likeliest kind is the kth (0 ≤ k < PAGE_KINDS.length). */
  thresholdFor(kind: number): number {
    return this.thresholds[kind] ?? this.blocks.threshold;
  }

  /** The probability that a page has no main content, when it reaches the threshold it was trained with; else null. */
  noContentOf(pageFeatures: readonly number[]): number | null {
    const p = this.noContent.probability(pageFeatures);
    return p >= this.noContent.threshold ? p : null;
  }

  /** Each page kind's probability for a page's features. */
  readonly pageTypesOf = (pageFeatures: readonly number[]): number[] => this.pageTypes.map((model) => model.probability(pageFeatures));
}

let shipped: MainContentModel | undefined;

/** The model trained by npm run train:main-content and shipped with the engine, read once. */
export function shippedMainContentModel(): MainContentModel {
  return (shipped ??= new MainContentModel(shippedModelFile as unknown as MainContentModelFile));
}
