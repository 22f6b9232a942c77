import fs from 'node:fs';
import path from 'node:path';
import { BlockModel, MainContentModel, type MainContentModelFile } from './block-model';
import { BLOCK_FEATURES, PAGE_FEATURES } from './content-blocks';
import { PAGE_KINDS } from './main-content-locator';

const SHIPPED = JSON.parse(fs.readFileSync(path.join(__dirname, 'main-content-model.json'), 'utf8')) as MainContentModelFile;
// Written with the model by npm run train:main-content: features with what LightGBM's own predict said of them.
const PARITY = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../test/fixtures/main-content-model-parity.json'), 'utf8')) as {
  blocks: { features: number[][]; probabilities: number[] };
  pages: { features: number[][]; probabilities: number[][] };
};

describe('the main-content model', () => {
  const model = new MainContentModel(SHIPPED);

  it('reads the features the engine writes, in the same order', () => {
    expect(SHIPPED.blocks.features).toEqual(BLOCK_FEATURES);
    expect(SHIPPED.pageTypes).toHaveLength(PAGE_KINDS.length);
    for (const pageType of SHIPPED.pageTypes) expect(pageType.features).toEqual(PAGE_FEATURES);
  });

  it('gives every block and page the probability the trainer’s own predict gave it', () => {
    PARITY.blocks.features.forEach((features, i) =>
      expect(model.blocks.probability(features)).toBeCloseTo(PARITY.blocks.probabilities[i]!, 12),
    );
    PARITY.pages.features.forEach((features, i) => {
      const expected = PARITY.pages.probabilities[i]!;
      model.pageTypesOf(features).forEach((p, k) => expect(p).toBeCloseTo(expected[k]!, 12));
    });
  });

  it('is small enough to ship', () => {
    expect(fs.statSync(path.join(__dirname, 'main-content-model.json')).size).toBeLessThan(5 * 1024 * 1024);
  });

  it('refuses a model file it cannot read rather than guessing', () => {
    expect(() => new MainContentModel({ ...SHIPPED, format: 'other' } as unknown as MainContentModelFile)).toThrow(/format/);
    const tree = { feature: [999], split: [0], left: [-1], right: [-2], leaf: [0, 1] };
    expect(() => new BlockModel({ format: 'lightgbm-flat-1', features: ['a'], threshold: 0.5, trees: [tree] })).toThrow(/feature 999/);
  });

  it('walks a tree as LightGBM does: at or below the threshold goes left, a one-leaf tree adds its value', () => {
    const tiny = new BlockModel({
      format: 'lightgbm-flat-1',
      features: ['a', 'b'],
      threshold: 0.5,
      trees: [
        { feature: [0, 1], split: [1, 2], left: [1, -1], right: [-3, -2], leaf: [-1, 1, 2] },
        { feature: [], split: [], left: [], right: [], leaf: [0.5] },
      ],
    });
    const sigmoid = (raw: number) => 1 / (1 + Math.exp(-raw));
    expect(tiny.probability([1, 2])).toBeCloseTo(sigmoid(-1 + 0.5), 15);
    expect(tiny.probability([1, 2.0001])).toBeCloseTo(sigmoid(1 + 0.5), 15);
    expect(tiny.probability([1.5, 0])).toBeCloseTo(sigmoid(2 + 0.5), 15);
  });
});
