import { relative } from 'node:path';
import ts from 'typescript';

/*
 * The repository's TypeScript as one program (tsconfig.json's files), read
 * for two questions lint cannot answer alone: which files (of src/, test/,
 * bench/ and scripts/) import each other in a circle, and which exported
 * names of src/ no other file uses.
 */

export interface SourceGraph {
  /** Each file's imports of the repository's other files (static, type-only, re-exports and dynamic import()), by path from the root. */
  imports: Map<string, Set<string>>;
  /** Exported names of src/ files that no other file (src, test, bench, scripts) imports: "file: name". */
  unusedExports: string[];
}

function isSrc(root: string, fileName: string): boolean {
  return relative(root, fileName).startsWith('src/');
}

export function readSourceGraph(root: string): SourceGraph {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}/tsconfig.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const own = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'));
  const path = (f: ts.SourceFile) => relative(root, f.fileName);
  const imports = new Map<string, Set<string>>();
  /** "file\nname" of every exported declaration another file imports. */
  const used = new Set<string>();
  /** Files another file reads whole (import * as, import(), typeof import()): all their exports count as used. */
  const wholeModules = new Set<string>();

  const resolveFile = (from: ts.SourceFile, specifier: string): string | undefined => {
    const resolved = ts.resolveModuleName(specifier, from.fileName, config.options, ts.sys).resolvedModule;
    return resolved && !resolved.isExternalLibraryImport ? resolved.resolvedFileName : undefined;
  };
  // Every link of a chain of re-exports (an index.ts) counts as used, and the declaration it ends at.
  const markUsed = (from: ts.SourceFile, local: ts.Symbol | undefined) => {
    let symbol = local && local.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(local) : undefined;
    while (symbol) {
      for (const declaration of symbol.declarations ?? []) {
        const file = declaration.getSourceFile();
        if (file !== from) used.add(`${file.fileName}\n${symbol.name}`);
      }
      symbol = symbol.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(symbol) : undefined;
    }
  };

  for (const file of own) {
    const edges = new Set<string>();
    const edge = (specifier: ts.Expression | undefined) => {
      if (!specifier || !ts.isStringLiteralLike(specifier)) return undefined;
      const target = resolveFile(file, specifier.text);
      if (target) edges.add(relative(root, target));
      return target;
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node)) {
        const target = edge(node.moduleSpecifier);
        const bindings = node.importClause?.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings) && target) wholeModules.add(target);
        if (bindings && ts.isNamedImports(bindings))
          for (const element of bindings.elements) markUsed(file, checker.getSymbolAtLocation(element.name));
        if (node.importClause?.name) markUsed(file, checker.getSymbolAtLocation(node.importClause.name));
      } else if (ts.isExportDeclaration(node)) {
        edge(node.moduleSpecifier);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const target = edge(node.arguments[0]);
        if (target) wholeModules.add(target);
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        const target = edge(node.argument.literal);
        if (target) wholeModules.add(target);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    imports.set(path(file), edges);
  }

  const unusedExports: string[] = [];
  for (const file of own) {
    if (!isSrc(root, file.fileName) || wholeModules.has(file.fileName)) continue;
    for (const name of exportedNames(file)) if (!used.has(`${file.fileName}\n${name}`)) unusedExports.push(`${path(file)}: ${name}`);
  }
  return { imports, unusedExports };
}

/**
 * The names a file exports itself: its exported declarations and export lists, re-exports included (`export *` passes on names declared
 * elsewhere).
 */
function exportedNames(file: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause))
        names.push(...statement.exportClause.elements.map((e) => e.name.text));
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      names.push('default');
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (modifiers.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)) names.push('default');
    else if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText(file)));
    else {
      const name = (statement as ts.DeclarationStatement).name;
      if (name) names.push(name.getText(file));
    }
  }
  return names;
}

/**
 * Each circle of files importing one another (a strongly connected component of more than one file, or a file importing itself), its files
 * sorted.
 */
export function importCircles(imports: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || imports.get(file)?.has(file)) circles.push(component.sort());
  };
  for (const file of [...imports.keys()].sort()) if (!index.has(file)) connect(file);
  return circles;
}
