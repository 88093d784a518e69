"""Tree helpers of AGL601/AGL602 (`pre_ga_names.py`): where a name stands (a load, a
binding, an annotation, an `isinstance` check, a call), which scopes see it, and the
edits that rewrite it. Nothing here knows which rule is running."""

from __future__ import annotations

from dataclasses import dataclass

from agentlint.knowledge import maf
from agentlint.knowledge.maf import ContentClass
from agentlint.rules.lazy import lazy_types, libcst_module

cst = libcst_module()

MODULE_SCOPE = 0
function_scopes = lazy_types("FunctionDef", "Lambda")


@dataclass
class ImportedName:
    """`from agent_framework[.x] import Old [as local]`."""

    alias: cst.ImportAlias
    statement: cst.ImportFrom
    ancestors: tuple[cst.CSTNode, ...]
    """Ancestors of the alias (the statement is the last one)."""
    imported: str
    local: str
    qualified: str


@dataclass
class PlannedEdit:
    node: cst.CSTNode
    ancestors: tuple[cst.CSTNode, ...]
    replacement: "cst.CSTNode | str"
    start_after: tuple | None = None
    end_before: tuple | None = None


def name_role(node: cst.Name, ancestors: list[cst.CSTNode]) -> str:
    """`load`, `bind`, or `other` (an attribute name, a keyword, part of an import)."""
    if not ancestors:
        return "other"
    parent = ancestors[-1]
    if isinstance(parent, cst.Attribute):
        if parent.attr is node:
            return "other"
        # the head of a chain: inside an import statement it names a module
        for ancestor in reversed(ancestors):
            if isinstance(ancestor, cst.Attribute):
                continue
            return "other" if isinstance(ancestor, (cst.ImportAlias, cst.ImportFrom, cst.Import)) else "load"
        return "load"
    if isinstance(parent, cst.Arg):
        return "other" if parent.keyword is node else "load"
    if isinstance(parent, (cst.ImportAlias, cst.ImportFrom, cst.Import)):
        return "other"
    if isinstance(parent, cst.AsName):
        grand = ancestors[-2] if len(ancestors) > 1 else None
        return "other" if isinstance(grand, cst.ImportAlias) else "bind"
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
        return "bind" if parent.name is node else "load"
    if isinstance(parent, cst.Param):
        return "bind" if parent.name is node else "load"
    if isinstance(parent, (cst.NameItem, cst.MatchAs, cst.MatchStar)):
        return "bind"
    if isinstance(parent, cst.MatchMapping) and parent.rest is node:
        return "bind"
    if isinstance(parent, cst.MatchKeywordElement) and parent.key is node:
        return "other"
    # targets, possibly inside tuples and lists
    child: cst.CSTNode = node
    index = len(ancestors) - 1
    while index >= 0 and isinstance(ancestors[index], (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        child = ancestors[index]
        index -= 1
    if index < 0:
        return "load"
    holder = ancestors[index]
    if isinstance(holder, (cst.AssignTarget, cst.Del)):
        return "bind"
    if isinstance(holder, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) and holder.target is child:
        return "bind"
    if isinstance(holder, (cst.For, cst.CompFor)) and holder.target is child:
        return "bind"
    return "load"


def scope_of(ancestors) -> int:
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return id(ancestor)
    return MODULE_SCOPE


def binding_scope(ancestors) -> int:
    """The scope a binding lands in. A function's own name binds in the enclosing
    scope; a parameter inside it."""
    parent = ancestors[-1]
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef)):
        return scope_of(ancestors[:-1])
    return scope_of(ancestors)


def visible_scopes(ancestors) -> tuple[int, ...]:
    """The module and every enclosing function; the innermost class only when the
    position is in the class body itself (methods do not see class scope)."""
    scopes = [MODULE_SCOPE]
    innermost_is_class = False
    for ancestor in ancestors:
        if isinstance(ancestor, function_scopes()):
            scopes.append(id(ancestor))
            innermost_is_class = False
        elif isinstance(ancestor, cst.ClassDef):
            scopes.append(id(ancestor))
            innermost_is_class = True
    if not innermost_is_class:
        scopes = [s for s in scopes if not is_class_id(s, ancestors)]
    return tuple(scopes)


def is_class_id(scope: int, ancestors) -> bool:
    return any(id(a) == scope and isinstance(a, cst.ClassDef) for a in ancestors)


def is_import_position(ancestors) -> bool:
    return any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in ancestors)


def use_context(node: cst.CSTNode, ancestors) -> str:
    """Where a class name is used: `annotation`, `isinstance`, `call`, `match`,
    `attribute` (`X.from_dict`) or `other`."""
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, cst.Call) and parent.func is node:
        return "call"
    if isinstance(parent, cst.MatchClass) and parent.cls is node:
        return "match"
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return "attribute"
    if isinstance_call(ancestors)[0] is not None:
        return "isinstance"
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, cst.Annotation):
            return "annotation"
        if isinstance(ancestor, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            break
    return "other"


def isinstance_call(ancestors) -> tuple[cst.Call | None, tuple]:
    """The `isinstance(x, <here>)` call around a class name (directly, or in a tuple)."""
    chain = list(ancestors)
    index = len(chain) - 1
    if index >= 1 and isinstance(chain[index], cst.Element) and isinstance(chain[index - 1], cst.Tuple):
        index -= 2
    if index < 1 or not isinstance(chain[index], cst.Arg):
        return None, ()
    arg, call = chain[index], chain[index - 1]
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or call.func.value != "isinstance":
        return None, ()
    if len(call.args) != 2 or call.args[1] is not arg or arg.keyword is not None:
        return None, ()
    return call, tuple(chain[: index - 1])


def plain_reads(expr: cst.BaseExpression) -> bool:
    """Names, attributes and subscripts by constants or names: reading it twice calls
    nothing but properties and `__getitem__`."""
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Attribute):
        return plain_reads(expr.value)
    if isinstance(expr, cst.Subscript):
        if not plain_reads(expr.value):
            return False
        for element in expr.slice:
            index = element.slice
            if not isinstance(index, cst.Index):
                return False
            value = index.value
            if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
                value = value.expression
            if not isinstance(value, (cst.Integer, cst.SimpleString, cst.Name)):
                return False
        return True
    return False


def needs_parentheses(call_ancestors: tuple) -> bool:
    """Whether `a and b` must be parenthesised where the `isinstance` call stood."""
    parent = call_ancestors[-1] if call_ancestors else None
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert, cst.CompIf, cst.Return, cst.Assign, cst.Arg, cst.Element)):
        if isinstance(parent, cst.IfExp):
            return True  # `x if a and b else y` is fine, but keep it obvious
        return False
    if isinstance(parent, cst.BooleanOperation):
        return not isinstance(parent.operator, cst.And)
    return True


def in_class_body(ancestors) -> bool:
    for ancestor in reversed(ancestors):
        if isinstance(ancestor, cst.FunctionDef):
            return False
        if isinstance(ancestor, cst.ClassDef):
            return True
    return False


def replace_ref(node: cst.CSTNode, ref: cst.BaseExpression) -> cst.BaseExpression:
    return ref.with_changes(lpar=getattr(node, "lpar", ()), rpar=getattr(node, "rpar", ()))


def type_test(subject: cst.BaseExpression, types: list[str]) -> cst.Comparison:
    left = cst.Attribute(value=subject.with_changes(lpar=[], rpar=[]), attr=cst.Name("type"))
    if len(types) == 1:
        return cst.Comparison(left, [cst.ComparisonTarget(cst.Equal(), cst.SimpleString(f'"{types[0]}"'))])
    elements = [
        cst.Element(cst.SimpleString(f'"{t}"'), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(types) - 1 else cst.MaybeSentinel.DEFAULT)
        for i, t in enumerate(types)
    ]
    return cst.Comparison(left, [cst.ComparisonTarget(cst.In(), cst.Tuple(elements))])


def factory_call(content: ContentClass, call: cst.Call, ref: cst.BaseExpression) -> cst.Call | None:
    """`Old(a, k=v)` as `Content.from_x(a, k=v)`, or None when not one-to-one."""
    if content.factory is None:
        return None
    renamed = dict(content.renamed_parameters)
    args: list[cst.Arg] = []
    position = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if position >= len(content.positional):
                return None
            name = renamed.get(content.positional[position], content.positional[position])
            if position < len(content.factory_positional) and content.factory_positional[position] == name:
                args.append(arg)
            elif name in content.factory_keywords:
                args.append(arg.with_changes(keyword=cst.Name(name), equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
            else:
                return None
            position += 1
            continue
        name = renamed.get(arg.keyword.value, arg.keyword.value)
        if name not in content.factory_keywords:
            return None
        args.append(arg if name == arg.keyword.value else arg.with_changes(keyword=cst.Name(name)))
    # A positional argument may not follow a keyword one.
    seen_keyword = False
    for arg in args:
        if arg.keyword is not None:
            seen_keyword = True
        elif seen_keyword:
            return None
    if args:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    func = cst.Attribute(value=ref, attr=cst.Name(content.factory))
    return call.with_changes(func=func, args=args)


def alias_edit(imp: ImportedName, new_name: str | None) -> PlannedEdit | None:
    """Rename the imported name (keeping `as x`), or (``new_name`` None: the new name is
    imported already) remove the alias from its statement without losing a comment.
    When it cannot be removed cleanly it is renamed: a duplicate import is harmless."""
    alias, statement = imp.alias, imp.statement
    chain = imp.ancestors + (alias,)
    names = list(statement.names)  # type: ignore[arg-type]
    index = next(i for i, a in enumerate(names) if a is alias)
    if new_name is None and len(names) > 1:
        after = names[index + 1] if index + 1 < len(names) else None
        before = names[index - 1] if index > 0 else None
        if after is not None and not has_comment(alias.comma):
            # `B, ` from `A, B, C`: from the start of B to the start of C
            return PlannedEdit(alias, imp.ancestors, "", end_before=(after, imp.ancestors))
        if before is not None and not has_comment(before.comma):
            # `, B` from `A, B`: from the end of A to the end of B (B's comma stays)
            return PlannedEdit(alias, imp.ancestors, "", start_after=(before, imp.ancestors))
    if new_name is None:
        new_name = new_imported_name(imp.imported, imp.imported)
    return PlannedEdit(alias.name, chain, cst.Name(new_name))


def new_imported_name(old: str, new_local: str) -> str:
    if old in maf.MAF_CONTENT_CLASSES:
        return "Content"
    row = maf.MAF_RENAMED_NAMES.get(old)
    return row.new if row is not None and row.new else new_local


def has_comment(comma) -> bool:
    if not isinstance(comma, cst.Comma):
        return False
    return "#" in cst.Module(body=[]).code_for_node(comma)


def string_elements(expr: cst.BaseExpression) -> set[str]:
    out: set[str] = set()
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        for element in expr.elements:
            if isinstance(element.value, cst.SimpleString):
                value = element.value.evaluated_value
                if isinstance(value, str):
                    out.add(value)
    return out


def merge_nested(edits: list[PlannedEdit]) -> list[PlannedEdit] | None:
    """Fold edits whose node lies inside another edit's node into that edit's
    replacement; None when that cannot be done (the fix is then not offered)."""
    unique: list[PlannedEdit] = []
    seen: dict[int, PlannedEdit] = {}
    for edit in edits:
        if id(edit.node) in seen:
            continue
        seen[id(edit.node)] = edit
        unique.append(edit)
    if len(unique) == 1:
        return unique
    replacements = {id(e.node): e.replacement for e in unique}
    containers: dict[int, PlannedEdit | None] = {}
    for edit in unique:
        container = None
        for ancestor in reversed(edit.ancestors):
            holder = seen.get(id(ancestor))
            if holder is not None and (holder.start_after is not None or holder.end_before is not None):
                continue  # a range edit (an insertion, a removal) holds no other edit
            if id(ancestor) in seen and ancestor is seen[id(ancestor)].node:
                container = seen[id(ancestor)]
                break
        containers[id(edit.node)] = container
    # deepest first, so that an inner edit is folded before its container is
    for edit in sorted(unique, key=lambda e: -len(e.ancestors)):
        container = containers[id(edit.node)]
        if container is None:
            continue
        outer = replacements[id(container.node)]
        inner = replacements[id(edit.node)]
        if isinstance(outer, str) or isinstance(inner, str):
            return None
        folded = outer.deep_replace(edit.node, inner)
        if folded is outer:
            return None
        replacements[id(container.node)] = folded
    out = []
    for edit in unique:
        if containers[id(edit.node)] is None:
            out.append(PlannedEdit(edit.node, edit.ancestors, replacements[id(edit.node)], edit.start_after, edit.end_before))
    return out
