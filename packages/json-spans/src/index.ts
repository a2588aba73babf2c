export {
  type JsonSpan,
  keyEquals,
  keyText,
  parseSpan,
  plainKeysObjectEnd,
  skipWhitespace,
  valueEnd,
  walkArray,
  walkObject,
} from './json-spans.ts';
