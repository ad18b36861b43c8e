/**
 * `rapport/function-size`: no function with more than `max` lines of its own code. A line counts when
 * it holds a token of the function that is not inside a function nested in it, so a service factory
 * is measured by its own statements, and each method it returns by its own; blank lines and comments
 * never count.
 */
const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

export const functionSize = {
  meta: {
    type: 'suggestion',
    docs: { description: 'limit the lines of code a function holds itself, its nested functions apart' },
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: { tooLong: '{{name}} has {{lines}} lines of its own code (at most {{max}}): split it.' },
  },
  create(context) {
    const max = context.options[0]?.max ?? 80;
    const source = context.sourceCode;
    /** Every function's [start, end] range, to tell a token's own function. */
    const ranges = [];
    const check = (node) => {
      const nested = ranges.filter((r) => r[0] > node.range[0] && r[1] <= node.range[1]);
      const lines = new Set();
      for (const token of source.getTokens(node)) {
        if (nested.some((r) => token.range[0] >= r[0] && token.range[1] <= r[1])) continue;
        for (let l = token.loc.start.line; l <= token.loc.end.line; l++) lines.add(l);
      }
      if (lines.size > max) {
        const name =
          node.id?.name ??
          (node.parent?.type === 'VariableDeclarator' ? node.parent.id.name : null) ??
          node.parent?.key?.name ??
          'A function';
        context.report({ node, loc: node.loc.start, messageId: 'tooLong', data: { name, lines: String(lines.size), max: String(max) } });
      }
    };
    return {
      ':function'(node) {
        if (FUNCTION_TYPES.has(node.type)) ranges.push(node.range);
      },
      'Program:exit'() {
        // Every range is known once the whole file was walked.
        const all = [];
        const walk = (n) => {
          if (!n || typeof n.type !== 'string') return;
          if (FUNCTION_TYPES.has(n.type)) all.push(n);
          for (const key of Object.keys(n)) {
            if (key === 'parent') continue;
            const v = n[key];
            if (Array.isArray(v)) v.forEach(walk);
            else if (v && typeof v === 'object' && typeof v.type === 'string') walk(v);
          }
        };
        walk(source.ast);
        for (const fn of all) check(fn);
      },
    };
  },
};

export default { rules: { 'function-size': functionSize } };
