import { describe, expect, it } from 'vitest';
import { likeToRegexp, likeToWildcard, lowerCodePoints } from './like-pattern.ts';

describe('like pattern translation', () => {
  it.each([
    ['abc', '.*abc.*'],
    ['A%', 'a.*'],
    ['_b', '.b'],
    ['x\\%y', '.*x\\%y.*'],
    ['x\\_y%', 'x\\_y.*'],
    ['a.b*c?%', 'a\\.b\\*c\\?.*'],
    ['\\\\%', '\\\\.*'],
    ['trailing\\', '.*trailing\\\\.*'],
    ['"#@&<>~|(){}[]+ %', '\\"\\#\\@\\&\\<\\>\\~\\|\\(\\)\\{\\}\\[\\]\\+\\ .*'],
  ])('%s → regexp %s', (like, regexp) => {
    expect(likeToRegexp(like)).toBe(regexp);
  });

  it.each([
    ['abc', '*abc*'],
    ['a%b_', 'a*b?'],
    ['a*b?', '*a\\*b\\?*'],
    ['x\\%', '*x%*'],
  ])('%s → wildcard %s', (like, wildcard) => {
    expect(likeToWildcard(like)).toBe(wildcard);
  });

  it('lowercases per code point like Lucene', () => {
    expect(lowerCodePoints('ÉΣİ')).toBe('éσi');
  });
});
