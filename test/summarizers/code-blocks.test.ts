import { describe, expect, it } from 'vitest';
import { splitCode } from '../../src/summarizers/code-blocks.js';
import { guessLanguage, languageFromLabel } from '../../src/summarizers/code-language.js';

describe('splitCode', () => {
  it('takes fenced blocks out of the prose, with the fence language', () => {
    const { prose, code } = splitCode('Try this:\n\n```ts\nconst x: number = 1;\n```\n\nThen run it.');
    expect(prose).toBe('Try this:\n\nThen run it.');
    expect(code).toEqual([{ language: 'TypeScript', text: 'const x: number = 1;' }]);
  });

  it('handles tilde fences, unclosed fences and fences glued to text', () => {
    expect(splitCode('~~~python\nprint(1)\n~~~').code[0]?.language).toBe('Python');
    expect(splitCode('Here:\n```js\nlet a = 1;').prose).toBe('Here:');
    const glued = splitCode('Here it is ```\nSELECT * FROM users WHERE id = 1;\n``` and that is all.');
    expect(glued.prose).toBe('Here it is\n\nand that is all.');
    expect(glued.code[0]?.language).toBe('SQL');
  });

  it('treats ```x``` on one line as inline code', () => {
    expect(splitCode('Run ```npm ci``` first.')).toEqual({ prose: 'Run `npm ci` first.', code: [] });
  });

  it('finds indented blocks after a blank line, but not list continuations', () => {
    const indented = splitCode('Why?\n\n    const user = null;\n    console.log(user.name);\n\nThanks.');
    expect(indented.prose).toBe('Why?\n\nThanks.');
    expect(indented.code[0]?.language).toBe('JavaScript');
    const list = splitCode('- first item\n\n    still the first item\n- second item');
    expect(list.code).toEqual([]);
  });

  it('finds unfenced code and stack traces, and leaves prose alone', () => {
    const trace = splitCode(
      "It crashes:\nTypeError: Cannot read properties of undefined (reading 'map')\n    at ProductList (ProductList.jsx:12:23)\n    at renderWithHooks (react-dom.js:16305:18)",
    );
    expect(trace.prose).toBe('It crashes:');
    expect(trace.code[0]?.language).toBe('stack trace');
    expect(splitCode('function add(a, b) {\n  return a + b;\n}').prose).toBe('');
    const prose = 'What is the difference between interface and type (in TypeScript)? I use both = confusing.';
    expect(splitCode(prose)).toEqual({ prose, code: [] });
  });
});

describe('code languages', () => {
  it('names fence labels', () => {
    expect(languageFromLabel('tsx')).toBe('TypeScript');
    expect(languageFromLabel('sh')).toBe('shell');
    expect(languageFromLabel('text')).toBeUndefined();
    expect(languageFromLabel('zig')).toBe('Zig');
  });

  it('guesses unlabelled code', () => {
    expect(guessLanguage('def add(a, b):\n    return a + b')).toBe('Python');
    expect(guessLanguage('package main\n\nfunc main() {}')).toBe('Go');
    expect(guessLanguage('{"name": "demo", "private": true}')).toBe('JSON');
    expect(guessLanguage('services:\n  db:\n    image: postgres:16\n    restart: always')).toBe('YAML');
    expect(guessLanguage('$ npm install --save-dev vitest')).toBe('shell');
    expect(guessLanguage('hello there')).toBeUndefined();
  });
});
