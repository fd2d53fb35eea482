import ts from "typescript"

/**
 * Where a module declares mutable state at its top level: a `let` or `var`, or a `const` holding a Map, Set, WeakMap,
 * WeakSet or array that its type does not declare read only. The rule for a lookup table built once: type it
 * `ReadonlyMap`, `ReadonlySet` or `readonly T[]` (or build it with `Object.freeze`, or an array `as const`); a WeakMap
 * or WeakSet has no read-only type and is state. Each finding is `name (line N)`.
 */
export function moduleState(root: ts.SourceFile): string[] {
  const found: string[] = []
  for (const statement of root.statements) {
    if (!ts.isVariableStatement(statement)) continue
    const list = statement.declarationList
    const mutableBinding = (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using)) !== ts.NodeFlags.Const
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(root)
      const line = root.getLineAndCharacterOfPosition(declaration.getStart(root)).line + 1
      if (mutableBinding || holdsMutableValue(declaration)) found.push(`${name} (line ${line})`)
    }
  }
  return found
}

const COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet"])
const READ_ONLY_TYPES = /^(ReadonlyMap|ReadonlySet|ReadonlyArray|Readonly)\b|^readonly /

/** True when a `const` holds a collection or an array its declared type does not make read only. */
function holdsMutableValue(declaration: ts.VariableDeclaration): boolean {
  const initializer = declaration.initializer
  if (initializer === undefined) return false
  const value = unwrapped(initializer)
  if (value === null) return false
  const collection = ts.isNewExpression(value) && ts.isIdentifier(value.expression) && COLLECTIONS.has(value.expression.text)
  const weak = collection && ts.isIdentifier((value as ts.NewExpression).expression) && /^Weak/.test(((value as ts.NewExpression).expression as ts.Identifier).text)
  if (weak) return true
  if (!collection && !ts.isArrayLiteralExpression(value)) return false
  const type = declaration.type?.getText()
  return type === undefined || !READ_ONLY_TYPES.test(type)
}

/** The value under type assertions and parentheses; null when it is frozen or an `as const` literal. */
function unwrapped(expression: ts.Expression): ts.Expression | null {
  let value = expression
  for (;;) {
    if (ts.isParenthesizedExpression(value) || ts.isSatisfiesExpression(value)) {
      value = value.expression
      continue
    }
    if (ts.isAsExpression(value)) {
      if (ts.isTypeReferenceNode(value.type) && value.type.typeName.getText() === "const") return null
      value = value.expression
      continue
    }
    break
  }
  if (ts.isCallExpression(value) && value.expression.getText() === "Object.freeze") return null
  return value
}
