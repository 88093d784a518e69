"""AGL601 pre-ga-approval-name and AGL602 pre-ga-agent-framework-name.

Both rules find names of Microsoft Agent Framework (Python) that were renamed or
removed before (or at) 1.0 GA, and offer the rewrite where it is mechanical. They share
everything but their rows of the rename tables in ``knowledge.maf``: AGL601 owns the
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
from typing import ClassVar

from agentlint.knowledge import maf
from agentlint.knowledge.maf import RenamedMethod
from agentlint.lazy_regex import lazy_compile
from agentlint.rules._pre_ga_imports import (
    PACKAGE,
    Finding,
    Occurrence,
    PreGaImports,
    Unit,
)
from agentlint.rules._pre_ga_tree import PlannedEdit, use_context
from agentlint.rules.api import dotted_name
from agentlint.rules.catalog.pre_ga import PRE_GA_AGENT_FRAMEWORK_NAME, PRE_GA_APPROVAL_NAME
from agentlint.rules.lazy import libcst_module

cst = libcst_module()


class _PreGaNames(PreGaImports):
    """The forms beyond imports and names: attributes (`af.ChatAgent`, `Role.USER`),
    renamed methods on agent-framework receivers and renamed keywords."""

    def leave_Module(self, original_node: cst.Module) -> None:
        self._module = original_node
        self._star_maf = [s for s in self._stars if s == PACKAGE or s.startswith(PACKAGE + ".")]
        self._star_other = [s for s in self._stars if s not in self._star_maf]
        self._units: dict[str, Unit] = {}
        self._use_units: dict[int, Unit] = {}
        """id(use node) -> the unit of that use (for keyword edits joining it)."""
        findings: list[Finding] = []
        findings += self._name_findings()
        findings += self._attribute_findings()
        findings += self._call_findings()
        for finding in findings:
            self._emit(finding)

    def _attribute_findings(self) -> list[Finding]:
        out: list[Finding] = []
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
            unit = Unit("")
            content = maf.MAF_CONTENT_CLASSES.get(old)
            if content is not None:
                ref = node.with_changes(attr=cst.Name("Content"), lpar=[], rpar=[])
                edit, safe, reason = self._content_use_edit(content, Occurrence(node, ancestors, ()), ref, context)  # type: ignore[arg-type]
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
            out.append(Finding(node, ancestors, self._message(old, context), unit))
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

    def _enum_finding(self, node: cst.Attribute, ancestors, enum: str, member: str, value: str) -> Finding:
        _, version, change = maf.MAF_OLD_ENUMS[enum]
        message = (
            f"`{enum}.{member}` is pre-GA Microsoft Agent Framework: since {version} `{enum}` is a plain "
            f"string type without members; use `\"{value}\"`"
        )
        unit = Unit(f'Replace with `"{value}"`')
        literal = cst.SimpleString(f'"{value}"')
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            if parent.attr.value == "value":
                unit.add(PlannedEdit(parent, ancestors[:-1], literal.with_changes(lpar=parent.lpar, rpar=parent.rpar)))
            else:
                unit.block(f"`.{parent.attr.value}` of a string")
        else:
            unit.add(PlannedEdit(node, ancestors, literal.with_changes(lpar=node.lpar, rpar=node.rpar)))
        return Finding(node, ancestors, message, unit)

    def _call_findings(self) -> list[Finding]:
        kinds = self._receiver_kinds()
        out: list[Finding] = []
        for call, ancestors in self._calls:
            func = call.func
            method_unit: Unit | None = None
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

    def _method_finding(self, spec: RenamedMethod, call: cst.Call, ancestors, kinds) -> Finding:
        func = call.func
        assert isinstance(func, cst.Attribute)
        where = {"agent": "agent", "client": "chat client", "approval_request": "approval request"}[spec.receiver]
        new_call = f"{spec.new}(..., stream=True)" if spec.stream else f"{spec.new}(...)"
        owner = "`FunctionApprovalRequestContent`" if spec.receiver == "approval_request" else f"the {where}"
        message = (
            f"`{spec.old}()` is a pre-GA method of {owner} (Microsoft Agent Framework): "
            f"since {spec.version} ({spec.change}) it is `{new_call}`"
        )
        unit = Unit(f"Use `{new_call}`")
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
        return Finding(func.attr, ancestors + (call, func), message, unit)

    def _class_name(self, func: cst.BaseExpression) -> str | None:
        """The final name of what a call constructs (`agent_framework.ChatAgent` -> `ChatAgent`)."""
        qualified = self._qualified(func)
        return qualified.rpartition(".")[2] if qualified else None

    def _keyword_finding(self, call: cst.Call, ancestors, arg: cst.Arg, kinds, method_unit: Unit | None) -> Finding | None:
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
                unit = Unit("Rename `chat_client=` to `client=`")
            unit.add(PlannedEdit(arg.keyword, arg_ancestors, arg.keyword.with_changes(value=new)))  # type: ignore[union-attr]
            return Finding(arg.keyword, arg_ancestors, message, unit)  # type: ignore[arg-type]
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
                return Finding(arg.keyword, arg_ancestors, message, method_unit)  # type: ignore[arg-type]
            unit = Unit("Rename `thread=` to `session=`")
            unit.add(edit, False)
            return Finding(arg.keyword, arg_ancestors, message, unit)  # type: ignore[arg-type]
        if keyword == "text":
            name = self._class_name(func)
            if name not in maf.MAF_MESSAGE_CLASSES:
                return None
            message = (
                f"`text=` of `{name}(...)` is pre-GA Microsoft Agent Framework: it was removed in "
                f"{version} ({change}); pass `contents=[text]`"
            )
            unit = Unit("Use `contents=[...]`")
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
            return Finding(arg.keyword, arg_ancestors, message, unit)  # type: ignore[arg-type]
        return None


class _MafPrefilter:
    """Only an absolute import can bring a name from `agent_framework` (relative
    imports inside the package itself are not followed), so the text must say
    `agent_framework` (a fast substring test) and one of the rule's words."""

    def __init__(self, words: bytes) -> None:
        self._words = lazy_compile(words)

    def search(self, content: bytes) -> bool:
        return PACKAGE.encode() in content and self._words.search(content) is not None


class PreGaApprovalName(_PreGaNames):
    """The pre-GA approval types of Microsoft Agent Framework (Python)."""

    code = "AGL601"
    meta = PRE_GA_APPROVAL_NAME
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
    meta = PRE_GA_AGENT_FRAMEWORK_NAME
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


