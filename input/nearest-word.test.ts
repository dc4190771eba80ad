import { describe, expect, it } from 'vitest';
import {
  editDistance,
  FEW_WORDS,
  nearestWord,
  suggestion,
  withSuggestion,
} from './nearest-word.ts';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('device', 'device')).toBe(0);
    expect(editDistance('devce', 'device')).toBe(1);
    expect(editDistance('devices', 'device')).toBe(1);
    expect(editDistance('devixe', 'device')).toBe(1);
    expect(editDistance('dveice', 'device')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('compares letters case-insensitively', () => {
    expect(editDistance('NURSES', 'Nurses')).toBe(0);
  });
});

describe('nearestWord', () => {
  it('names the valid word a slip of the keys away', () => {
    expect(nearestWord('duraton', ['name', 'duration', 'timeline'])).toBe('duration');
    expect(nearestWord('htm', ['console', 'junit', 'json', 'html'])).toBe('html');
    expect(nearestWord('Nurse', ['Doctors', 'Nurses', 'Porters'])).toBe('Nurses');
    expect(nearestWord('alrt', ['alert', 'broadcast', 'cancel'])).toBe('alert');
    expect(nearestWord('nurses', ['Nurses'])).toBe('Nurses');
  });

  it('names nothing when every word is far, or the word itself is valid', () => {
    expect(nearestWord('zebra', ['alert', 'broadcast', 'cancel'])).toBeUndefined();
    expect(nearestWord('ab', ['xy'])).toBeUndefined();
    expect(nearestWord('alert', ['alert'])).toBeUndefined();
    expect(nearestWord('x', [])).toBeUndefined();
  });

  it('allows more edits in longer words, and takes the first of equals', () => {
    expect(nearestWord('acknowldgd', ['acknowledged'])).toBe('acknowledged');
    expect(nearestWord('ab', ['abc', 'abd'])).toBe('abc');
  });

  it('reads words that name built-ins of every object as any other word', () => {
    expect(nearestWord('__proto__', ['proto'])).toBeUndefined();
    expect(nearestWord('valueOf', ['value'])).toBe('value');
    expect(nearestWord('constructor', ['name', 'duration'])).toBeUndefined();
  });
});

describe('suggestion', () => {
  it('says the nearest word and lists the valid ones when few', () => {
    expect(suggestion('htm', ['console', 'junit', 'json', 'html'], 'reporters')).toBe(
      'did you mean html? (reporters: console, junit, json, html)',
    );
    expect(suggestion('Nurse', ['Doctors', 'Nurses'], 'groups', true)).toBe(
      "did you mean 'Nurses'? (groups: Doctors, Nurses)",
    );
  });

  it('lists the valid words alone when none is near, and names only the nearest of many', () => {
    expect(suggestion('zebra', ['alert', 'cancel'], 'steps')).toBe('(steps: alert, cancel)');
    const many = Array.from({ length: FEW_WORDS + 1 }, (_, i) => `word${i}`);
    expect(suggestion('wrod1', many, 'words')).toBe('did you mean word1?');
    expect(suggestion('zebra', many, 'words')).toBe('');
  });

  it('leaves a message as it is when there is nothing to suggest', () => {
    expect(withSuggestion('x is wrong', 'x', [], 'words')).toBe('x is wrong');
    expect(withSuggestion('htm is wrong', 'htm', ['html'], 'words')).toBe(
      'htm is wrong: did you mean html? (words: html)',
    );
    expect(withSuggestion('zebra is wrong', 'zebra', ['html'], 'words')).toBe(
      'zebra is wrong (words: html)',
    );
  });
});
