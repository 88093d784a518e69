"""The shared part of AGL601/AGL602 (``pre_ga_names``): which names of the module come
from `agent_framework` (imports, `import agent_framework as af`, star imports), the
units of edits that rename an import and its uses together, and the messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Iterable

from agentlint.knowledge import maf
from agentlint.knowledge.maf import ContentClass, RenamedName
from agentlint.rules._pre_ga_tree import (
    MODULE_SCOPE,
    ImportedName,
    PlannedEdit,
    alias_edit,
    binding_scope,
    factory_call,
    has_comment,
    in_class_body,
    is_import_position,
    isinstance_call,
    merge_nested,
    name_role,
    needs_parentheses,
    new_imported_name,
    plain_reads,
    replace_ref,
    string_elements,
    type_test,
    use_context,
    visible_scopes,
)
from agentlint.rules.api import NodeEdit, Rule, RuleContext, dotted_name
from agentlint.rules.lazy import libcst_module

cst = libcst_module()

PACKAGE = maf.MAF_PACKAGE


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")


@dataclass
class Finding:
    node: cst.CSTNode
    ancestors: tuple[cst.CSTNode, ...]
    message: str
    unit: "Unit | None" = None
    reason: str = ""
    """Why there is no fix, when there is none (added to the message)."""


@dataclass
class Unit:
    """Edits that stand or fall together."""

    message: str
    edits: list[PlannedEdit] = field(default_factory=list)
    safe: bool = True
    blocked: str = ""
    """Why the unit cannot be fixed (empty when it can)."""

    def add(self, edit: PlannedEdit | None, safe: bool = True, reason: str = "") -> None:
        if edit is None:
            self.block(reason or "no mechanical rewrite for one of its uses")
            return
        self.edits.append(edit)
        self.safe = self.safe and safe

    def block(self, reason: str) -> None:
        if not self.blocked:
            self.blocked = reason


@dataclass
class Occurrence:
    """A bare name where it is read (a load) or bound."""

    node: cst.Name
    ancestors: tuple[cst.CSTNode, ...]
    scopes: tuple[int, ...]
    """The scopes that can see this position (module first), by node id."""



class PreGaImports(Rule):
    """Shared machinery; subclasses choose their rows of the tables."""

    reads_agents = False  # names and imports only

    code: ClassVar[str]

    def __init__(self, context: RuleContext) -> None:
        super().__init__(context)
        self._imports: list[ImportedName] = []
        self._module_aliases: dict[str, str] = {}
        """`import agent_framework as af` -> {"af": "agent_framework"}."""
        self._maf_locals: dict[str, str] = {}
        """Every local name bound by a `from agent_framework... import`, to its target."""
        self._stars: list[str] = []
        """Modules imported with `*` (any module)."""
        self._other_bindings: dict[str, list[int]] = {}
        """Name -> the scopes where something other than an agent-framework import binds it."""
        self._loads: dict[str, list[Occurrence]] = {}
        self._attributes: list[tuple[cst.Attribute, tuple[cst.CSTNode, ...]]] = []
        self._calls: list[tuple[cst.Call, tuple[cst.CSTNode, ...]]] = []
        self._assignments: list[tuple[str, cst.BaseExpression]] = []
        self._annotated: list[tuple[str, cst.BaseExpression]] = []
        self._loop_targets: list[tuple[str, cst.BaseExpression]] = []
        self._narrowed: list[tuple[str, cst.BaseExpression]] = []
        self._annotation_strings: list[str] = []
        self._exported: set[str] = set()
        self._defined: set[str] = set()
        """Names of the functions and methods defined in the module."""

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = dotted_name(alias.name)
            if dotted is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local, target = alias.asname.name.value, dotted
            else:
                local, target = dotted.split(".")[0], dotted.split(".")[0]
            if dotted == PACKAGE or dotted.startswith(PACKAGE + "."):
                self._module_aliases[local] = target
            else:
                self._bind_other(local)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            module = None
        else:
            module = dotted_name(node.module)
        maf = module is not None and (module == PACKAGE or module.startswith(PACKAGE + "."))
        if isinstance(node.names, cst.ImportStar):
            self._stars.append(module or "")
            return
        ancestors = tuple(self.context.ancestors) + (node,)
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            imported = alias.name.value
            local = imported
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            if not maf:
                self._bind_other(local)
                continue
            qualified = f"{module}.{imported}"
            self._maf_locals[local] = qualified
            self._imports.append(ImportedName(alias, node, ancestors, imported, local, qualified))

    def _bind_other(self, name: str, scope: int = MODULE_SCOPE) -> None:
        self._other_bindings.setdefault(name, []).append(scope)

    def visit_Name(self, node: cst.Name) -> None:
        ancestors = self.context.ancestors
        role = name_role(node, ancestors)
        if role == "load":
            self._loads.setdefault(node.value, []).append(
                Occurrence(node, tuple(ancestors), visible_scopes(ancestors))
            )
        elif role == "bind":
            self._bind_other(node.value, binding_scope(ancestors))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if attr in self._interesting_attributes:
            self._attributes.append((node, tuple(self.context.ancestors)))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        interesting = isinstance(func, cst.Attribute) and func.attr.value in self._methods
        if not interesting:
            interesting = any(a.keyword is not None and a.keyword.value in self._keywords for a in node.args)
        if not interesting and isinstance(func, cst.Name) and func.value == "isinstance" and len(node.args) == 2:
            subject = dotted_name(node.args[0].value)
            if subject is not None:
                self._narrowed.append((subject, node.args[1].value))
        if interesting:
            self._calls.append((node, tuple(self.context.ancestors)))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            key = dotted_name(target.target)
            if key is not None:
                self._assignments.append((key, node.value))
                if key == "__all__":
                    self._exported |= string_elements(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if dotted_name(node.target) == "__all__":
            self._exported |= string_elements(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        key = dotted_name(node.target)
        if key is None:
            return
        self._annotated.append((key, node.annotation.annotation))
        if node.value is not None:
            self._assignments.append((key, node.value))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._defined.add(node.name.value)

    def visit_Param(self, node: cst.Param) -> None:
        if node.annotation is not None:
            self._annotated.append((node.name.value, node.annotation.annotation))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            key = dotted_name(node.asname.name)
            if key is not None:
                self._assignments.append((key, node.item))

    def visit_For(self, node: cst.For) -> None:
        key = dotted_name(node.target)
        if key is not None:
            self._loop_targets.append((key, node.iter))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        key = dotted_name(node.target)
        if key is not None:
            self._loop_targets.append((key, node.iter))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if any(isinstance(a, cst.Annotation) for a in self.context.ancestors):
            self._annotation_strings.append(node.value)

    @property
    def _interesting_attributes(self) -> frozenset[str]:
        return self._attribute_names

    def _owns(self, old: str) -> bool:
        row = maf.MAF_RENAMED_NAMES.get(old)
        if row is not None:
            return row.code == self.code
        content = maf.MAF_CONTENT_CLASSES.get(old)
        if content is not None:
            return content.code == self.code
        return old in maf.MAF_OLD_ENUMS and self.code == "AGL602"

    def _emit(self, finding: Finding) -> None:
        unit = finding.unit
        message = finding.message
        if unit is None or unit.blocked or not unit.edits:
            reason = finding.reason or (unit.blocked if unit is not None else "")
            if reason:
                message += f" (no automatic fix: {reason})"
            self.report(finding.node, message, ancestors=finding.ancestors)
            return
        edits = merge_nested(unit.edits)
        if edits is None:
            self.report(finding.node, message, ancestors=finding.ancestors)
            return
        self.report(
            finding.node,
            message,
            ancestors=finding.ancestors,
            edits=[NodeEdit(e.node, e.replacement, e.ancestors, e.start_after, e.end_before) for e in edits],
            fix_message=unit.message,
            fix_safe=unit.safe,
        )

    def _name_findings(self) -> list[Finding]:
        out: list[Finding] = []
        by_local: dict[str, list[ImportedName]] = {}
        for imp in self._imports:
            old = maf.maf_renamed_name(imp.qualified)
            if old is None or not self._owns(old) or old in maf.MAF_OLD_ENUMS:
                continue
            by_local.setdefault(imp.local, []).append(imp)
        for local, imports in by_local.items():
            old = imports[0].imported
            for imp in imports:
                unit = self._unit_for(old, local, renamed_local=imp.local == imp.imported)
                out.append(Finding(imp.alias.name, imp.ancestors + (imp.alias,), self._message(old, "import"), unit))
            if imports[0].local != imports[0].imported and old not in maf.MAF_CONTENT_CLASSES:
                continue  # `import ChatAgent as CA`: renaming the import is enough
            for use in self._loads.get(local, ()):
                if is_import_position(use.ancestors):
                    continue
                out.append(self._use_finding(old, local, use))
        # `from agent_framework import *`: the old names themselves.
        if self._star_maf and not self._star_other:
            for old in sorted(set(maf.MAF_RENAMED_NAMES) | set(maf.MAF_CONTENT_CLASSES)):
                if not self._owns(old) or old in self._maf_locals or old in self._other_bindings:
                    continue
                for use in self._loads.get(old, ()):
                    out.append(self._use_finding(old, old, use))
        return out

    def _target_local(self, old: str, local: str, renamed_local: bool) -> str | None:
        """The local name the unit leaves behind."""
        if old in maf.MAF_CONTENT_CLASSES:
            return "Content" if renamed_local else local
        row = maf.MAF_RENAMED_NAMES.get(old)
        if row is None or row.new is None:
            return None
        return row.new if renamed_local else local

    def _unit_for(self, old: str, local: str, renamed_local: bool) -> Unit | None:
        """The unit of the imports binding ``local`` (and of its uses); created with its
        import edits on first use."""
        if old in maf.MAF_OLD_ENUMS:
            return None
        new_local = self._target_local(old, local, renamed_local)
        if new_local is None:
            return None
        key = new_local
        unit = self._units.get(key)
        if unit is not None:
            return unit
        content = old in maf.MAF_CONTENT_CLASSES
        new_name = new_imported_name(old, new_local)
        unit = Unit("Migrate to `Content`" if content else f"Rename `{old}` to `{new_name}`")
        self._units[key] = unit
        # Every import feeding this unit (several old names may end in one `Content`).
        members = [
            imp
            for imp in self._imports
            if (o := maf.maf_renamed_name(imp.qualified)) is not None
            and self._owns(o)
            and self._target_local(o, imp.local, imp.local == imp.imported) == new_local
        ]
        locals_ = {imp.local for imp in members}
        for name in locals_:
            if name in self._other_bindings:
                unit.block(f"`{name}` is also bound to something else in this module")
            if name in self._exported and name != new_local:
                unit.block(f"`{name}` is listed in `__all__`")
            if name != new_local and any(_word(name).search(s) for s in self._annotation_strings):
                unit.safe = False  # a string annotation still names it
        if new_local not in locals_ and self._clashes(new_local, (MODULE_SCOPE,)):
            unit.block(f"`{new_local}` already means something else in this module")
        # `Content` already imported from agent_framework: the old imports go away.
        already = self._maf_locals.get(new_local)
        has_new = already is not None and already.rpartition(".")[2] == new_imported_name(old, new_local)
        if content and renamed_local:
            self._content_import_edits(unit, members, has_new)
        else:
            for imp in members:
                unit.add(alias_edit(imp, None if has_new else new_imported_name(old, new_local)))
        return unit

    def _clashes(self, name: str, scopes: Iterable[int]) -> bool:
        """Whether ``name`` is bound, where ``scopes`` see it, by something other than an
        agent-framework import of the same name (or is read without any binding)."""
        target = self._maf_locals.get(name)
        if target is not None and target.rpartition(".")[2] != name:
            return True
        bound = self._other_bindings.get(name, ())
        if any(scope in bound for scope in scopes):
            return True
        if target is None and not bound and not self._star_maf and self._loads.get(name):
            return True  # read here, bound nowhere we can see: unknown
        return False

    def _content_import_edits(self, unit: Unit, members: list[ImportedName], has_new: bool) -> None:
        """Rewrite each import statement holding members: the first member becomes
        `Content` (unless it is imported already), the others go away. The whole
        statement is rewritten so that AGL601 and AGL602 never both add `Content` to it
        in one round. A comment after a name that goes away moves to the name before
        it (or stays on a `Content` kept for it)."""
        statements: dict[int, tuple[cst.ImportFrom, tuple, list[ImportedName]]] = {}
        for imp in members:
            entry = statements.setdefault(id(imp.statement), (imp.statement, imp.ancestors[:-1], []))
            entry[2].append(imp)
        first = not has_new
        for statement, ancestors, imps in statements.values():
            names = list(statement.names)  # type: ignore[arg-type]
            drop = {id(imp.alias) for imp in imps}
            kept: list[cst.ImportAlias] = []
            orphans: list[cst.Comma] = []
            for alias in names:
                if id(alias) not in drop:
                    kept.append(alias)
                elif first:
                    first = False
                    kept.append(alias.with_changes(name=cst.Name("Content")))
                elif has_comment(alias.comma):
                    if kept and not has_comment(kept[-1].comma):
                        kept[-1] = kept[-1].with_changes(comma=alias.comma)
                    else:
                        orphans.append(alias.comma)  # type: ignore[arg-type]
            if not kept:
                # Everything in it goes and `Content` is imported elsewhere: a duplicate
                # import of `Content` keeps the statement (and its comments).
                comma = orphans[0] if orphans else names[0].comma
                kept = [imps[0].alias.with_changes(name=cst.Name("Content"), comma=comma)]
                orphans = orphans[1:]
            if orphans:
                unit.block("a comment in the import would be lost")
                return
            # The last name ends the list as the original last name did, unless its own
            # comma carries a comment (then it is a trailing comma inside parentheses).
            if not has_comment(kept[-1].comma):
                kept[-1] = kept[-1].with_changes(comma=names[-1].comma)
            elif kept[-1] is not names[-1]:
                # Its comment stays; the line after it is where the list closes.
                closing = names[-1].comma
                last_line = (
                    closing.whitespace_after.last_line
                    if isinstance(closing, cst.Comma) and isinstance(closing.whitespace_after, cst.ParenthesizedWhitespace)
                    else cst.SimpleWhitespace("")
                )
                comma = kept[-1].comma
                if isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace):
                    kept[-1] = kept[-1].with_changes(
                        comma=comma.with_changes(whitespace_after=comma.whitespace_after.with_changes(last_line=last_line))
                    )
            if not statement.lpar:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            for i, alias in enumerate(kept[:-1]):
                if isinstance(alias.comma, cst.MaybeSentinel):
                    kept[i] = alias.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            unit.add(PlannedEdit(statement, ancestors, statement.with_changes(names=kept)))

    def _use_finding(self, old: str, local: str, use: Occurrence) -> Finding:
        content = maf.MAF_CONTENT_CLASSES.get(old)
        context = use_context(use.node, use.ancestors)
        message = self._message(old, context)
        unit = self._unit_for(old, local, renamed_local=local == old) if local in self._maf_locals else None
        if unit is None and local not in self._maf_locals:
            unit = self._star_unit(old)
        if unit is None:
            return Finding(use.node, use.ancestors, message)
        new_local = self._target_local(old, local, local == old) or local
        if new_local != local and self._clashes(new_local, use.scopes):
            unit.block(f"`{new_local}` already means something else where `{local}` is used")
        if content is not None:
            edit, safe, reason = self._content_use_edit(content, use, cst.Name(new_local), context)
        else:
            row = maf.MAF_RENAMED_NAMES[old]
            if context == "call" and not row.calls:
                edit, safe, reason = None, False, f"`{row.new}` is not built the same way"
            else:
                edit, safe, reason = PlannedEdit(use.node, use.ancestors, use.node.with_changes(value=new_local)), row.safe, ""
        unit.add(edit, safe, reason)
        self._use_units[id(use.node)] = unit
        return Finding(use.node, use.ancestors, message, unit)

    def _star_unit(self, old: str) -> Unit | None:
        new = self._target_local(old, old, True)
        if new is None:
            return None
        unit = self._units.get(new)
        if unit is None:
            unit = Unit(f"Rename to `{new}`" if old not in maf.MAF_CONTENT_CLASSES else "Migrate to `Content`")
            self._units[new] = unit
            if new in self._other_bindings:
                unit.block(f"`{new}` already means something else in this module")
        return unit

    def _content_use_edit(
        self, content: ContentClass, use: Occurrence, ref: cst.BaseExpression, context: str
    ) -> tuple[PlannedEdit | None, bool, str]:
        """The edit for one use of a content class. ``ref`` is the expression naming
        `Content` once the unit is applied (`Content`, an alias, or `af.Content`)."""
        node, ancestors = use.node, use.ancestors
        if context == "annotation":
            field_annotation = in_class_body(ancestors)
            return PlannedEdit(node, ancestors, replace_ref(node, ref)), not field_annotation, ""
        if context == "isinstance":
            return self._isinstance_edit(use, ref)
        if context == "call":
            call = ancestors[-1]
            assert isinstance(call, cst.Call)
            built = factory_call(content, call, ref)
            if built is None:
                return None, False, f"`{content.old}(...)` has no one-to-one `Content.from_*` call here"
            return PlannedEdit(call, ancestors[:-1], built), False, ""
        if context == "match":
            pattern = ancestors[-1]
            assert isinstance(pattern, cst.MatchClass)
            if pattern.patterns:
                return None, False, "a positional class pattern has no `Content` equivalent"
            kwds = [
                cst.MatchKeywordElement(
                    key=cst.Name("type"),
                    pattern=cst.MatchValue(cst.SimpleString(f'"{content.type}"')),
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if pattern.kwds else cst.MaybeSentinel.DEFAULT,
                ),
                *pattern.kwds,
            ]
            return PlannedEdit(pattern, ancestors[:-1], pattern.with_changes(cls=ref, kwds=kwds)), True, ""
        return None, False, f"replace it by hand with `Content` and a `type == \"{content.type}\"` check"

    def _isinstance_edit(self, use: Occurrence, ref: cst.BaseExpression) -> tuple[PlannedEdit | None, bool, str]:
        call, call_ancestors = isinstance_call(use.ancestors)
        if call is None or "isinstance" in self._other_bindings:
            return None, False, "not a plain `isinstance` call"
        classes = call.args[1].value
        elements = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        types: list[str] = []
        for element in elements:
            old = self._resolve_class(element)
            content = maf.MAF_CONTENT_CLASSES.get(old or "")
            if content is None:
                return None, False, "the `isinstance` check mixes in other classes"
            if content.type not in types:
                types.append(content.type)
        subject = call.args[0].value
        if isinstance(subject, cst.Name):
            safe = True
        elif plain_reads(subject):
            safe = False  # `a.b[0]` is read twice: a property could answer differently
        else:
            return None, False, "the checked value is computed by a call"
        test = type_test(subject, types)
        expression = cst.BooleanOperation(
            left=cst.Call(
                func=cst.Name("isinstance"),
                args=[cst.Arg(subject.with_changes(lpar=[], rpar=[]), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Arg(ref)],
            ),
            operator=cst.And(),
            right=test,
        )
        if needs_parentheses(call_ancestors) or call.lpar:
            expression = expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return PlannedEdit(call, call_ancestors, expression), safe, ""

    def _resolve_class(self, expr: cst.BaseExpression) -> str | None:
        """The old content-class name ``expr`` refers to, if any."""
        if isinstance(expr, cst.Name):
            target = self._maf_locals.get(expr.value)
            if target is not None:
                return maf.maf_renamed_name(target)
            if self._star_maf and not self._star_other and expr.value not in self._other_bindings:
                return expr.value if expr.value in maf.MAF_CONTENT_CLASSES else None
            return None
        qualified = self._qualified(expr)
        return maf.maf_renamed_name(qualified) if qualified else None

    def _qualified(self, expr: cst.BaseExpression) -> str | None:
        """The agent-framework dotted name of a Name/Attribute chain, or None."""
        dotted = dotted_name(expr)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        target = self._module_aliases.get(head) or self._maf_locals.get(head)
        if target is None:
            if self._star_maf and not self._star_other and head not in self._other_bindings:
                if head in maf.MAF_RENAMED_NAMES or head in maf.MAF_CONTENT_CLASSES or head in maf.MAF_OLD_ENUMS:
                    target = f"{PACKAGE}.{head}"
            if target is None:
                return None
        return f"{target}.{rest}" if rest else target

    def _message(self, old: str, context: str) -> str:
        content = maf.MAF_CONTENT_CLASSES.get(old)
        if content is not None:
            what = "approval type" if content.code == "AGL601" else "content class"
            text = (
                f"`{old}` is a pre-GA {what} of Microsoft Agent Framework: since "
                f"{maf.MAF_CONTENT_VERSION} ({maf.MAF_CONTENT_CHANGE}) it is a `Content` with "
                f'`type == "{content.type}"`'
            )
            if context == "call" and content.factory:
                text += f", built with `Content.{content.factory}(...)`"
                if content.old == "FunctionApprovalResponseContent":
                    text += " or `request.to_function_approval_response(approved)`"
            elif context == "isinstance":
                text += f'; test `isinstance(x, Content) and x.type == "{content.type}"`'
            return text
        row: RenamedName = maf.MAF_RENAMED_NAMES[old]
        if row.new is None:
            return (
                f"`{old}` is a pre-GA name of Microsoft Agent Framework, removed in {row.version} "
                f"({row.change}): {row.hint}"
            )
        text = (
            f"`{old}` is a pre-GA name of Microsoft Agent Framework: it is `{row.new}` since "
            f"{row.version} ({row.change})"
        )
        if row.hint:
            text += f"; {row.hint}"
        return text
