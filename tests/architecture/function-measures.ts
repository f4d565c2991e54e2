import ts from 'typescript';

/** One function (closures, methods and accessors included) as two house rules measure it. */
export interface FunctionMeasure {
  /** `path: name`, the key the rules' exception lists use. */
  where: string;
  /** Every line from the function's first to its last, the closures inside it included. */
  span: number;
  /** The span minus those of the functions nested directly in it (each measured on its own). */
  ownLines: number;
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return `<anonymous at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}>`;
}

/** Every function of one source file, in the order it appears. */
export function measureFunctions(path: string, text: string): FunctionMeasure[] {
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const spanOf = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const measures: FunctionMeasure[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node)) {
      const span = spanOf(node);
      let ownLines = span;
      const subtractNested = (child: ts.Node): void => {
        if (isFunction(child)) ownLines -= spanOf(child);
        else ts.forEachChild(child, subtractNested);
      };
      ts.forEachChild(node, subtractNested);
      measures.push({ where: `${path}: ${nameOf(node, source)}`, span, ownLines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return measures;
}
