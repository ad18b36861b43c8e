import { RuleTester } from 'eslint';
import { describe, it } from 'vitest';
import { functionSize } from '../../eslint/function-size.js';

RuleTester.describe = describe;
RuleTester.it = it;

const lines = (n: number, what = 'x += 1;') => Array.from({ length: n }, () => `  ${what}`).join('\n');
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });

tester.run('function-size', functionSize as never, {
  valid: [
    // Its own code at the limit.
    { code: `function f() {\n  let x = 0;\n${lines(2)}\n}`, options: [{ max: 5 }] },
    // A factory measured without the bodies of the functions it returns (8 lines: their keys and
    // brackets are its own), each of them within the limit.
    {
      code: `function create() {\n  return {\n    a() {\n${lines(4)}\n    },\n    b: () => {\n${lines(4)}\n    },\n  };\n}`,
      options: [{ max: 8 }],
    },
    // Comments and blank lines do not count.
    { code: `function f() {\n  // one\n\n  /* two\n three */\n  return 1;\n}`, options: [{ max: 3 }] },
  ],
  invalid: [
    {
      code: `function f() {\n  let x = 0;\n${lines(4)}\n}`,
      options: [{ max: 5 }],
      errors: [{ messageId: 'tooLong', data: { name: 'f', lines: '7', max: '5' } }],
    },
    {
      // The nested method is too long, not the factory around it.
      code: `const create = () => ({\n  run() {\n${lines(6)}\n  },\n});`,
      options: [{ max: 6 }],
      errors: [{ messageId: 'tooLong', data: { name: 'run', lines: '8', max: '6' } }],
    },
  ],
});
