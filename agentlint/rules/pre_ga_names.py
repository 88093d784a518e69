"""AGL601 pre-ga-approval-name and AGL602 pre-ga-agent-framework-name.

Both rules find names of Microsoft Agent Framework (Python) that were renamed or
removed before (or at) 1.0 GA, and offer the rewrite where it is mechanical. They share
everything but their rows of the rename tables in ``knowledge.py``: AGL601 owns the
approval types (`FunctionApprovalRequestContent`, `FunctionApprovalResponseContent`,
`request.create_response(...)`), AGL602 the rest.

Only names that come from `agent_framework` count: imported from it or a submodule
(absolute imports), reached through `import agent_framework as af`, or provided by
`from agent_framework import *`. Comments, docstrings and strings are never flagged.
Methods (`run_stream`, `create_agent`, ...) are flagged on receivers known to be
agent-framework objects: built by an agent-framework constructor, annotated with an
agent-framework type, or (approval requests) taken from `response.user_input_requests`.

How fixes stay consistent: an import and every use of the name it binds are one fix
(one "unit"): all its edits are applied together or not at all, and the unit is safe
only if each of its edits is. Units are keyed by the local name they leave behind, so
`FunctionApprovalRequestContent` and `FunctionApprovalResponseContent` imported side by
side become one `Content` import. A unit has no fix when any of its uses has no
mechanical rewrite, when the new name is already bound to something else where it
would be used, or when the old name is re-bound elsewhere in the module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Iterable

from agentlint.rules.lazy import libcst_module

cst = libcst_module()

from agentlint.knowledge import maf
from agentlint.knowledge.maf import ContentClass, RenamedMethod, RenamedName
from agentlint.rules.api import NodeEdit, Rule, RuleContext, dotted_name
from agentlint.rules._pre_ga_docs import DOCS_601, DOCS_602
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
from agentlint.rules.diagnostics import RuleMeta
_PACKAGE = maf.MAF_PACKAGE


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")


@dataclass
class _Finding:
    node: cst.CSTNode
    ancestors: tuple[cst.CSTNode, ...]
    message: str
    unit: "_Unit | None" = None
    reason: str = ""
    """Why there is no fix, when there is none (added to the message)."""


@dataclass
class _Unit:
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
class _Occurrence:
    """A bare name where it is read (a load) or bound."""

    node: cst.Name
    ancestors: tuple[cst.CSTNode, ...]
    scopes: tuple[int, ...]
    """The scopes that can see this position (module first), by node id."""


class _PreGaNames(Rule):
    """Shared machinery; subclasses choose their rows of the tables."""

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
        self._loads: dict[str, list[_Occurrence]] = {}
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

    # -- collection (one pass, during the engine's traversal) ---------------------------

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = dotted_name(alias.name)
            if dotted is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local, target = alias.asname.name.value, dotted
            else:
                local, target = dotted.split(".")[0], dotted.split(".")[0]
            if dotted == _PACKAGE or dotted.startswith(_PACKAGE + "."):
                self._module_aliases[local] = target
            else:
                self._bind_other(local)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            module = None
        else:
            module = dotted_name(node.module)
        maf = module is not None and (module == _PACKAGE or module.startswith(_PACKAGE + "."))
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
                _Occurrence(node, tuple(ancestors), visible_scopes(ancestors))
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

    # -- rows of the tables this rule owns ----------------------------------------------

    @property
    def _interesting_attributes(self) -> frozenset[str]:
        return self._attribute_names

    _attribute_names: ClassVar[frozenset[str]] = frozenset()
    _methods: ClassVar[frozenset[str]] = frozenset()
    _keywords: ClassVar[frozenset[str]] = frozenset()

    def _owns(self, old: str) -> bool:
        row = maf.MAF_RENAMED_NAMES.get(old)
        if row is not None:
            return row.code == self.code
        content = maf.MAF_CONTENT_CLASSES.get(old)
        if content is not None:
            return content.code == self.code
        return old in maf.MAF_OLD_ENUMS and self.code == "AGL602"

    # -- resolution (once the whole module has been seen) ------------------------------

    def leave_Module(self, original_node: cst.Module) -> None:
        self._module = original_node
        self._star_maf = [s for s in self._stars if s == _PACKAGE or s.startswith(_PACKAGE + ".")]
        self._star_other = [s for s in self._stars if s not in self._star_maf]
        self._units: dict[str, _Unit] = {}
        self._use_units: dict[int, _Unit] = {}
        """id(use node) -> the unit of that use (for keyword edits joining it)."""
        findings: list[_Finding] = []
        findings += self._name_findings()
        findings += self._attribute_findings()
        findings += self._call_findings()
        for finding in findings:
            self._emit(finding)

    def _emit(self, finding: _Finding) -> None:
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

    # -- bare names: imports and their uses, names from a star import ------------------

    def _name_findings(self) -> list[_Finding]:
        out: list[_Finding] = []
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
                out.append(_Finding(imp.alias.name, imp.ancestors + (imp.alias,), self._message(old, "import"), unit))
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

    def _unit_for(self, old: str, local: str, renamed_local: bool) -> _Unit | None:
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
        unit = _Unit("Migrate to `Content`" if content else f"Rename `{old}` to `{new_name}`")
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

    def _content_import_edits(self, unit: _Unit, members: list[ImportedName], has_new: bool) -> None:
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

    def _use_finding(self, old: str, local: str, use: _Occurrence) -> _Finding:
        content = maf.MAF_CONTENT_CLASSES.get(old)
        context = use_context(use.node, use.ancestors)
        message = self._message(old, context)
        unit = self._unit_for(old, local, renamed_local=local == old) if local in self._maf_locals else None
        if unit is None and local not in self._maf_locals:
            unit = self._star_unit(old)
        if unit is None:
            return _Finding(use.node, use.ancestors, message)
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
        return _Finding(use.node, use.ancestors, message, unit)

    def _star_unit(self, old: str) -> _Unit | None:
        new = self._target_local(old, old, True)
        if new is None:
            return None
        unit = self._units.get(new)
        if unit is None:
            unit = _Unit(f"Rename to `{new}`" if old not in maf.MAF_CONTENT_CLASSES else "Migrate to `Content`")
            self._units[new] = unit
            if new in self._other_bindings:
                unit.block(f"`{new}` already means something else in this module")
        return unit

    # -- uses of the content classes ----------------------------------------------------

    def _content_use_edit(
        self, content: ContentClass, use: _Occurrence, ref: cst.BaseExpression, context: str
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

    def _isinstance_edit(self, use: _Occurrence, ref: cst.BaseExpression) -> tuple[PlannedEdit | None, bool, str]:
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
                    target = f"{_PACKAGE}.{head}"
            if target is None:
                return None
        return f"{target}.{rest}" if rest else target

    # -- attribute forms: `af.ChatAgent`, `Role.USER` ---------------------------------

    def _attribute_findings(self) -> list[_Finding]:
        out: list[_Finding] = []
        for node, ancestors in self._attributes:
            qualified = self._qualified(node)
            if qualified is None:
                continue
            enum = self._enum_member(node)
            if enum is not None:
                out.append(self._enum_finding(node, ancestors, *enum))
                continue
            old = maf.maf_renamed_name(qualified)
            if old is None or old != node.attr.value or not self._owns(old) or old in maf.MAF_OLD_ENUMS:
                continue
            if dotted_name(node.value) is None or dotted_name(node.value).split(".")[0] not in self._module_aliases:
                continue  # only `af.X` / `agent_framework.X`; names are handled as names
            context = use_context(node, ancestors)
            unit = _Unit("")
            content = maf.MAF_CONTENT_CLASSES.get(old)
            if content is not None:
                ref = node.with_changes(attr=cst.Name("Content"), lpar=[], rpar=[])
                edit, safe, reason = self._content_use_edit(content, _Occurrence(node, ancestors, ()), ref, context)  # type: ignore[arg-type]
                unit.message = "Migrate to `Content`"
            else:
                row = maf.MAF_RENAMED_NAMES[old]
                reason = ""
                if row.new is None:
                    edit, safe = None, False
                elif context == "call" and not row.calls:
                    edit, safe, reason = None, False, f"`{row.new}` is not built the same way"
                else:
                    edit, safe = PlannedEdit(node, ancestors, node.with_changes(attr=cst.Name(row.new))), row.safe
                unit.message = f"Rename to `{row.new}`"
            unit.add(edit, safe, reason)
            self._use_units[id(node)] = unit
            out.append(_Finding(node, ancestors, self._message(old, context), unit))
        return out

    def _enum_member(self, node: cst.Attribute) -> tuple[str, str, str] | None:
        if self.code != "AGL602":
            return None
        qualified = self._qualified(node.value)
        if qualified is None:
            return None
        old = maf.maf_renamed_name(qualified)
        if old not in maf.MAF_OLD_ENUMS:
            return None
        members = maf.MAF_OLD_ENUMS[old][0]
        member = node.attr.value
        if member not in members:
            return None
        return old, member, members[member]

    def _enum_finding(self, node: cst.Attribute, ancestors, enum: str, member: str, value: str) -> _Finding:
        _, version, change = maf.MAF_OLD_ENUMS[enum]
        message = (
            f"`{enum}.{member}` is pre-GA Microsoft Agent Framework: since {version} `{enum}` is a plain "
            f"string type without members; use `\"{value}\"`"
        )
        unit = _Unit(f'Replace with `"{value}"`')
        literal = cst.SimpleString(f'"{value}"')
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            if parent.attr.value == "value":
                unit.add(PlannedEdit(parent, ancestors[:-1], literal.with_changes(lpar=parent.lpar, rpar=parent.rpar)))
            else:
                unit.block(f"`.{parent.attr.value}` of a string")
        else:
            unit.add(PlannedEdit(node, ancestors, literal.with_changes(lpar=node.lpar, rpar=node.rpar)))
        return _Finding(node, ancestors, message, unit)

    # -- methods and keywords ---------------------------------------------------------

    def _call_findings(self) -> list[_Finding]:
        kinds = self._receiver_kinds()
        out: list[_Finding] = []
        for call, ancestors in self._calls:
            func = call.func
            method_unit: _Unit | None = None
            if isinstance(func, cst.Attribute) and func.attr.value in self._methods:
                spec = maf.MAF_RENAMED_METHODS[func.attr.value]
                if self._receiver_matches(spec, func.value, call, kinds):
                    finding = self._method_finding(spec, call, ancestors, kinds)
                    method_unit = finding.unit
                    out.append(finding)
            for arg in call.args:
                if arg.keyword is None or arg.keyword.value not in self._keywords:
                    continue
                finding = self._keyword_finding(call, ancestors, arg, kinds, method_unit)
                if finding is not None:
                    out.append(finding)
        return out

    def _receiver_kinds(self) -> dict[str, str]:
        """What each tracked name holds: `agent`, `client`, `approval_request`,
        `approval_requests`, `thread` (names keyed by their dotted text)."""
        kinds: dict[str, str] = {}
        for key, annotation in self._annotated:
            kind = self._type_kind(annotation)
            if kind is not None:
                kinds.setdefault(key, kind)
        for key, cls in self._narrowed:
            if self._resolve_class(cls) == maf.MAF_APPROVAL_REQUEST:
                kinds.setdefault(key, "approval_request")
        for _ in range(3):
            before = len(kinds)
            for key, value in self._assignments:
                kind = self._expression_kind(value, kinds)
                if kind is not None:
                    kinds.setdefault(key, kind)
            for key, iterable in self._loop_targets:
                if self._expression_kind(iterable, kinds) == "approval_requests":
                    kinds.setdefault(key, "approval_request")
            if len(kinds) == before:
                break
        return kinds

    def _type_kind(self, annotation: cst.BaseExpression) -> str | None:
        if isinstance(annotation, cst.Subscript):  # ChatAgent[Options]
            annotation = annotation.value
        qualified = self._qualified(annotation)
        if qualified is None:
            return None
        name = qualified.rpartition(".")[2]
        if name == maf.MAF_APPROVAL_REQUEST:
            return "approval_request"
        if name in maf.MAF_AGENT_TYPES:
            return "agent"
        if "Client" in name or name in ("ChatClientProtocol", "SupportsChatGetResponse"):
            return "client"
        return None

    def _expression_kind(self, expr: cst.BaseExpression, kinds: dict[str, str]) -> str | None:
        if isinstance(expr, cst.Await):
            expr = expr.expression
        if isinstance(expr, cst.Attribute) and expr.attr.value == maf.MAF_APPROVAL_COLLECTION:
            return "approval_requests"
        dotted = dotted_name(expr)
        if dotted is not None:
            if dotted.rpartition(".")[2] == maf.MAF_APPROVAL_COLLECTION:
                return "approval_requests"  # a list gathered from `.user_input_requests`
            return kinds.get(dotted)
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = self._expression_kind(func.value, kinds)
            if method in ("create_agent", "as_agent") and receiver == "client":
                return "agent"
            if method in ("get_new_thread", "create_session") and receiver == "agent":
                return "thread"
            if method == "from_function_approval_request":
                return "approval_request" if self._qualified(func.value) else None
        qualified = self._qualified(func)
        if qualified is None:
            return None
        name = qualified.rpartition(".")[2]
        if not name[:1].isupper():
            return None
        if name == maf.MAF_APPROVAL_REQUEST:
            return "approval_request"
        if name in maf.MAF_AGENT_TYPES or name.endswith("Agent"):
            return "agent"
        if "Client" in name:
            return "client"
        return None

    def _receiver_matches(self, spec: RenamedMethod, receiver, call: cst.Call, kinds) -> bool:
        kind = self._expression_kind(receiver, kinds)
        if kind == spec.receiver:
            return True
        if kind is not None:
            return False  # known to be something else
        if spec.distinctive:
            if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls") and spec.old in self._defined:
                return False  # an agent class of its own that implements the method
            return bool(self._maf_locals or self._module_aliases or self._star_maf)
        if spec.receiver == "approval_request":
            # `x.create_response(True)` in a module that uses the pre-GA approval types,
            # on a variable (`HandoffAgentUserRequest.create_response(text)` is another
            # method, of a class).
            receiver_name = dotted_name(receiver)
            if receiver_name is None or self._qualified(receiver) is not None:
                return False
            if receiver_name.rpartition(".")[2][:1].isupper():
                return False
            approval_types = {c.old for c in maf.MAF_CONTENT_CLASSES.values() if c.code == "AGL601"}
            imported = (
                any(t.rpartition(".")[2] in approval_types for t in self._maf_locals.values())
                or any(node.attr.value in approval_types and self._qualified(node) for node, _ in self._attributes)
                or (self._star_maf and not self._star_other)
            )
            args = call.args
            single = len(args) == 1 and (args[0].keyword is None or args[0].keyword.value == "approved") and not args[0].star
            return imported and single
        return False

    def _method_finding(self, spec: RenamedMethod, call: cst.Call, ancestors, kinds) -> _Finding:
        func = call.func
        assert isinstance(func, cst.Attribute)
        where = {"agent": "agent", "client": "chat client", "approval_request": "approval request"}[spec.receiver]
        new_call = f"{spec.new}(..., stream=True)" if spec.stream else f"{spec.new}(...)"
        owner = "`FunctionApprovalRequestContent`" if spec.receiver == "approval_request" else f"the {where}"
        message = (
            f"`{spec.old}()` is a pre-GA method of {owner} (Microsoft Agent Framework): "
            f"since {spec.version} ({spec.change}) it is `{new_call}`"
        )
        unit = _Unit(f"Use `{new_call}`")
        renamed_func = func.with_changes(attr=func.attr.with_changes(value=spec.new))
        if spec.stream:
            if any(a.keyword is not None and a.keyword.value == "stream" for a in call.args):
                unit.block("the call already passes `stream=`")
            elif call.args:
                # Rename the method and insert `, stream=True` right after the last
                # argument (before its comma and any comment after it).
                last = call.args[-1]
                unit.add(PlannedEdit(func.attr, ancestors + (call, func), func.attr.with_changes(value=spec.new)), spec.safe)
                unit.add(PlannedEdit(last, ancestors + (call,), ", stream=True", start_after=(last, ancestors + (call,))), spec.safe)
            else:
                stream = cst.Arg(
                    cst.Name("True"),
                    keyword=cst.Name("stream"),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                )
                unit.add(PlannedEdit(call, ancestors, call.with_changes(func=renamed_func, args=[stream])), spec.safe)
        elif spec.old == "get_new_thread":
            if not call.args:
                unit.add(PlannedEdit(func.attr, ancestors + (call, func), func.attr.with_changes(value=spec.new)), spec.safe)
            elif (
                len(call.args) == 1
                and call.args[0].keyword is not None
                and call.args[0].keyword.value == "service_thread_id"
            ):
                arg = call.args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
                unit.message = "Use `get_session(...)`"
                message += " (or `get_session(service_session_id)` for a service-managed thread)"
                unit.add(PlannedEdit(call, ancestors, call.with_changes(func=func.with_changes(attr=cst.Name("get_session")), args=[arg])), False)
            else:
                unit.block("its arguments have no one-to-one equivalent")
        else:
            unit.add(PlannedEdit(func.attr, ancestors + (call, func), func.attr.with_changes(value=spec.new)), spec.safe)
        return _Finding(func.attr, ancestors + (call, func), message, unit)

    def _class_name(self, func: cst.BaseExpression) -> str | None:
        """The final name of what a call constructs (`agent_framework.ChatAgent` -> `ChatAgent`)."""
        qualified = self._qualified(func)
        return qualified.rpartition(".")[2] if qualified else None

    def _keyword_finding(self, call: cst.Call, ancestors, arg: cst.Arg, kinds, method_unit: _Unit | None) -> _Finding | None:
        keyword = arg.keyword.value  # type: ignore[union-attr]
        new, version, change = maf.MAF_RENAMED_KEYWORDS[keyword]
        func = call.func
        arg_ancestors = ancestors + (call, arg)
        if keyword == "chat_client":
            name = self._class_name(func)
            if name not in maf.MAF_AGENT_CLASSES:
                return None
            message = (
                f"`chat_client=` is the pre-GA keyword of `{name}` (Microsoft Agent Framework): since "
                f"{version} it is `client=` (`Agent(client=...)`)"
            )
            unit = self._use_units.get(id(func))
            if unit is None:
                unit = _Unit("Rename `chat_client=` to `client=`")
            unit.add(PlannedEdit(arg.keyword, arg_ancestors, arg.keyword.with_changes(value=new)))  # type: ignore[union-attr]
            return _Finding(arg.keyword, arg_ancestors, message, unit)  # type: ignore[arg-type]
        if keyword == "thread":
            if not isinstance(func, cst.Attribute) or func.attr.value not in ("run", "run_stream"):
                return None
            if self._expression_kind(func.value, kinds) != "agent":
                return None
            message = (
                f"`thread=` is the pre-GA keyword of `agent.{func.attr.value}()` (Microsoft Agent Framework): "
                f"since {version} ({change}) conversations are `AgentSession`s passed as `session=`"
            )
            edit = PlannedEdit(arg.keyword, arg_ancestors, arg.keyword.with_changes(value=new))  # type: ignore[union-attr]
            if method_unit is not None:
                method_unit.add(edit, False)
                return _Finding(arg.keyword, arg_ancestors, message, method_unit)  # type: ignore[arg-type]
            unit = _Unit("Rename `thread=` to `session=`")
            unit.add(edit, False)
            return _Finding(arg.keyword, arg_ancestors, message, unit)  # type: ignore[arg-type]
        if keyword == "text":
            name = self._class_name(func)
            if name not in maf.MAF_MESSAGE_CLASSES:
                return None
            message = (
                f"`text=` of `{name}(...)` is pre-GA Microsoft Agent Framework: it was removed in "
                f"{version} ({change}); pass `contents=[text]`"
            )
            unit = _Unit("Use `contents=[...]`")
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if any(a.keyword is not None and a.keyword.value == "contents" for a in call.args) or len(positional) > 1:
                unit.block("the call passes contents already")
            else:
                value = arg.value.with_changes(lpar=[], rpar=[]) if arg.value.lpar else arg.value
                replacement = arg.with_changes(
                    keyword=arg.keyword.with_changes(value=new),  # type: ignore[union-attr]
                    value=cst.List([cst.Element(value)]),
                )
                # A `None` text meant "no text"; `[None]` is not that.
                unit.add(PlannedEdit(arg, arg_ancestors[:-1], replacement), False)
            return _Finding(arg.keyword, arg_ancestors, message, unit)  # type: ignore[arg-type]
        return None

    # -- messages ---------------------------------------------------------------------

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


class _MafPrefilter:
    """Only an absolute import can bring a name from `agent_framework` (relative
    imports inside the package itself are not followed), so the text must say
    `agent_framework` (a fast substring test) and one of the rule's words."""

    def __init__(self, words: bytes) -> None:
        self._words = re.compile(words)

    def search(self, content: bytes) -> bool:
        return _PACKAGE.encode() in content and self._words.search(content) is not None


class PreGaApprovalName(_PreGaNames):
    """The pre-GA approval types of Microsoft Agent Framework (Python)."""

    code = "AGL601"
    meta = RuleMeta(
        code="AGL601",
        name="pre-ga-approval-name",
        summary=(
            "`FunctionApprovalRequestContent` / `FunctionApprovalResponseContent` are pre-GA names "
            "of Microsoft Agent Framework; approval requests are now `Content` with a `type`."
        ),
        docs=DOCS_601,
        fixable=True,
        help=(
            'Use `Content` with `type == "function_approval_request"`, '
            "`Content.from_function_approval_request(...)` and `request.to_function_approval_response(approved)`."
        ),
    )
    prefilter = _MafPrefilter(rb"FunctionApproval(?:Request|Response)Content|create_response")
    _attribute_names = frozenset({"FunctionApprovalRequestContent", "FunctionApprovalResponseContent"})
    _methods = frozenset({"create_response"})
    _keywords: ClassVar[frozenset[str]] = frozenset()


_AGL602_WORDS = sorted(
    {r.old for r in maf.MAF_RENAMED_NAMES.values()}
    | {c.old for c in maf.MAF_CONTENT_CLASSES.values() if c.code == "AGL602"}
    | {m.old for m in maf.MAF_RENAMED_METHODS.values() if m.receiver != "approval_request"}
)


class PreGaAgentFrameworkName(_PreGaNames):
    """The other pre-GA names of Microsoft Agent Framework (Python)."""

    code = "AGL602"
    meta = RuleMeta(
        code="AGL602",
        name="pre-ga-agent-framework-name",
        summary=(
            "A name of Microsoft Agent Framework (Python) that was renamed or removed before 1.0 "
            "(`ChatAgent`, `ai_function`, `ChatMessage`, `AgentThread`, `run_stream`, `chat_client=`, ...)."
        ),
        docs=DOCS_602,
        fixable=True,
        help="Use the GA name (see the version table in the rule's documentation).",
    )
    prefilter = _MafPrefilter(
        b"|".join(re.escape(w.encode()) for w in _AGL602_WORDS)
        + rb"|\b(?:Role|FinishReason)\b|\b(?:chat_client|thread|text)\s*="
    )
    _attribute_names = frozenset(
        {r.old for r in maf.MAF_RENAMED_NAMES.values()}
        | {c.old for c in maf.MAF_CONTENT_CLASSES.values() if c.code == "AGL602"}
        | {member for members, _, _ in maf.MAF_OLD_ENUMS.values() for member in members}
    )
    _methods = frozenset(m.old for m in maf.MAF_RENAMED_METHODS.values() if m.receiver != "approval_request")
    _keywords = frozenset(maf.MAF_RENAMED_KEYWORDS)


