import ts from 'typescript';

/** A column as a Kysely table interface declares it, reduced to what two declarations can be compared on. */
export interface ColumnShape {
  /** The non-null members of the selected type, sorted: `number`, `string`, … */
  type: string[];
  /** `null` is a member, or the property is optional (`?:`, absent from a selected row). */
  nullable: boolean;
  /** `Generated<…>`: inserts may leave it out. */
  generated: boolean;
}

export type TableShapes = Record<string, Record<string, ColumnShape>>;

/**
 * Reads the tables of a Kysely database interface (`interfaceName`: `{ table: TableInterface }`)
 * from TypeScript source, without compiling it: property types are read as written, unwrapping
 * `Generated<T>` and `ColumnType<Select, …>` (the selected type is what a row holds).
 */
export function tableShapes(source: string, interfaceName: string): TableShapes {
  const file = ts.createSourceFile('types.ts', source, ts.ScriptTarget.ES2022, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const aliases = new Map<string, ts.TypeNode>();
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, statement);
    // Aliases such as kysely-codegen's `Int8 = ColumnType<…>`; its own `Generated<T>` is handled by name.
    if (ts.isTypeAliasDeclaration(statement) && !statement.typeParameters) aliases.set(statement.name.text, statement.type);
  }
  const root = interfaces.get(interfaceName);
  if (!root) throw new Error(`no interface ${interfaceName}`);
  const out: TableShapes = {};
  for (const table of properties(root)) {
    const ref = table.type;
    if (!ref || !ts.isTypeReferenceNode(ref)) throw new Error(`${interfaceName}.${name(table)} is not a table interface`);
    const decl = interfaces.get(ref.typeName.getText(file));
    if (!decl) throw new Error(`no interface ${ref.typeName.getText(file)} for table ${name(table)}`);
    out[name(table)] = Object.fromEntries(
      properties(decl).map((p) => {
        const shape = shapeOf(p.type, file, aliases);
        return [name(p), { ...shape, nullable: shape.nullable || p.questionToken !== undefined }];
      }),
    );
  }
  return out;
}

function properties(decl: ts.InterfaceDeclaration): ts.PropertySignature[] {
  return decl.members.filter(ts.isPropertySignature);
}

function name(p: ts.PropertySignature): string {
  return ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : p.name.getText();
}

function shapeOf(node: ts.TypeNode | undefined, file: ts.SourceFile, aliases: Map<string, ts.TypeNode>): ColumnShape {
  if (!node) throw new Error('property without a type');
  if (ts.isParenthesizedTypeNode(node)) return shapeOf(node.type, file, aliases);
  if (ts.isUnionTypeNode(node)) {
    const parts = node.types.map((t) => shapeOf(t, file, aliases));
    return {
      type: [...new Set(parts.flatMap((p) => p.type))].sort(),
      nullable: parts.some((p) => p.nullable),
      generated: parts.some((p) => p.generated),
    };
  }
  const text = node.getText(file);
  if (text === 'null' || text === 'undefined') return { type: [], nullable: true, generated: false };
  if (ts.isTypeReferenceNode(node)) {
    const ref = node.typeName.getText(file);
    const [first] = node.typeArguments ?? [];
    if (ref === 'Generated' && first) return { ...shapeOf(first, file, aliases), generated: true };
    if (ref === 'ColumnType' && first) return shapeOf(first, file, aliases);
    const alias = aliases.get(ref);
    if (alias) return shapeOf(alias, file, aliases);
  }
  return { type: [text], nullable: false, generated: false };
}
