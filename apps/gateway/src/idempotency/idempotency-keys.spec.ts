import { canonicalJson, IdempotencyKeys, InvalidIdempotencyKeyError } from './idempotency-keys';

describe('Idempotency-Key rules', () => {
  it('treats the same body in another key order as the same request, and another value as different', () => {
    expect(canonicalJson({ b: [1, { y: 2, x: 1 }], a: 'z' })).toBe(canonicalJson({ a: 'z', b: [1, { x: 1, y: 2 }] }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
  });

  it.each(['', 'a:b', 'has space', 'tab\there', 'x'.repeat(201)])('refuses the key %p', (key) => {
    expect(() => IdempotencyKeys.assertWellFormed(key)).toThrow(InvalidIdempotencyKeyError);
  });

  it('accepts up to 200 characters without whitespace or colons', () => {
    expect(() => IdempotencyKeys.assertWellFormed('x'.repeat(200))).not.toThrow();
    expect(() => IdempotencyKeys.assertWellFormed('order-2026/11/23_#1')).not.toThrow();
  });
});
