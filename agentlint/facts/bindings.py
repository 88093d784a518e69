"""Receiver types: what a local, a parameter or `self.x` holds, where that is simple to
know (`x = Foo()`, `x: Foo`, `for x in xs` with `xs: list[Foo]`), recorded as bindings."""

from __future__ import annotations

import ast
import builtins

from agentlint.facts.ast_helpers import MODULE_SCOPE, SELF_NAMES, dotted
from agentlint.facts.imports import ImportTable
from agentlint.facts.scopes import UNSET, ClassBody, Types, joined, parse_annotation
from agentlint.facts.types import BindingFact

_Attribute, _Name, _Call, _Await = ast.Attribute, ast.Name, ast.Call, ast.Await
NOT_A_RECEIVER_TYPE = frozenset(dir(builtins)) | {"Any", "None", "typing.Any"}
_WRAPPERS = frozenset({"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"})
_CONTAINERS = frozenset({
    "list", "List", "set", "Set", "frozenset", "FrozenSet", "tuple", "Tuple", "Sequence", "MutableSequence",
    "Iterable", "Iterator", "Collection", "AbstractSet", "AsyncIterable", "AsyncIterator", "Generator",
})
ELEMENTS = "[]"
"""Prefix of the local-types key holding the element type of a container (`[]xs`)."""


class ReceiverTypes(ImportTable):
    """The types of receivers (the second layer of the facts walk)."""

    def __init__(self, module: str, is_package: bool) -> None:
        super().__init__(module, is_package)
        self.bindings: list[BindingFact] = []
        self._binding_keys: set[tuple[str, str, str]] = set()
        self.klass: ClassBody | None = None
        self.locals: dict[str, Types] | None = None
        """Receiver types of the function being walked: name -> ((type, line, declared), ...)."""
        self.depth = 0
        """How many branches or loops of the current function the walk is inside."""
        self.self_param: str | None = None
        """In a method: the name of its instance parameter (`self`) ..."""
        self.cls_param: str | None = None
        """... or of its class parameter (`cls`, or the first one of a `@classmethod`)."""
        self.self_type: str | None = None
        """While reading a method's return annotation: the class `Self` names."""

    # -- receiver types ---------------------------------------------------------------
    def _type_name(self, name: str | None) -> str | None:
        if not name or name in NOT_A_RECEIVER_TYPE:
            return None
        scoped = self.scoped
        if scoped:
            head = name.partition(".")[0]
            if scoped.get(head, UNSET) is None and head not in SELF_NAMES:
                return None  # a local: not a name the graph can look up
        resolved = self.resolve(name)
        if self.self_type is not None and resolved.rpartition(".")[2] == "Self":
            return self.self_type  # `-> Self` (typing or typing_extensions) in a method
        if resolved.startswith("typing.") or resolved in NOT_A_RECEIVER_TYPE:
            return None
        return resolved

    def _value_types(self, value: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """The types a value may have: `Foo()`, a typed local, a module-level variable,
        and the operands of `a or Foo()` / `Foo() if c else a`."""
        cls = type(value)
        if cls is _Await:
            value = value.value  # type: ignore[union-attr]
            cls = type(value)
        if cls is _Call:
            found = self._type_name(dotted(value.func))  # type: ignore[union-attr]
            return (found,) if found else ()
        if cls is _Name:
            name = value.id  # type: ignore[union-attr]
            known = self.locals.get(name) if self.locals else None
            if known is not None:
                return tuple(entry[0] for entry in known)
            if self._visible(name):
                # `runner = DEFAULT_RUNNER`: the type of that variable, found by the graph.
                found = self._type_name(name)
                return (found,) if found else ()
            return ()
        if depth < 3 and (cls is ast.BoolOp or cls is ast.IfExp):
            parts = value.values if cls is ast.BoolOp else (value.body, value.orelse)  # type: ignore[union-attr]
            out: list[str] = []
            for part in parts:
                for found in self._value_types(part, depth + 1):
                    if found not in out:
                        out.append(found)
            return tuple(out)
        return ()

    def _return_types(self, value: ast.AST, depth: int = 0) -> tuple[str, ...]:
        """The types `return value` gives in a function without a return annotation:
        `Foo(...)` (as typed for receivers), a local of a known type, `cls(...)` and
        `self` in a method (the enclosing class); the operands of `a or b` / `a if c else b`."""
        cls = type(value)
        if cls is _Await:
            value = value.value  # type: ignore[attr-defined]
            cls = type(value)
        if cls is _Call:
            func = value.func  # type: ignore[attr-defined]
            if type(func) is _Name and func.id == self.cls_param and self.klass is not None:
                return (f"{self.module}.{self.klass.name}",)
            return self._value_types(value)
        if cls is _Name:
            name = value.id  # type: ignore[attr-defined]
            if name == self.self_param and self.klass is not None:
                return (f"{self.module}.{self.klass.name}",)
            # Only a local whose type is known: a module-level name may be a class
            # (`return Foo` returns the class, not an instance).
            known = self.locals.get(name) if self.locals else None
            return tuple(entry[0] for entry in known) if known else ()
        if depth < 3 and (cls is ast.BoolOp or cls is ast.IfExp):
            parts = value.values if cls is ast.BoolOp else (value.body, value.orelse)  # type: ignore[attr-defined]
            return joined(self._return_types(part, depth + 1) for part in parts)
        return ()

    def _annotation_types(self, ann: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """The receiver types an annotation names: `Foo`, `Optional[Foo]`, every member
        of `A | B` and `Union[A, B]`; none for a container (see ``_element_types``)."""
        if ann is None or depth > 3:
            return ()
        cls = type(ann)
        if cls is ast.Constant:
            if not isinstance(ann.value, str):  # type: ignore[attr-defined]
                return ()
            text = ann.value.strip()  # type: ignore[attr-defined]
            if text.replace(".", "").replace("_", "").isalnum():
                found = self._type_name(text)
                return (found,) if found else ()
            parsed = parse_annotation(text)
            return self._annotation_types(parsed, depth + 1) if parsed is not None else ()
        if cls is ast.Subscript:
            base = dotted(ann.value)  # type: ignore[attr-defined]
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice  # type: ignore[attr-defined]
            if last == "Union":
                members = inner.elts if type(inner) is ast.Tuple else [inner]
                return joined(self._annotation_types(member, depth + 1) for member in members)
            if last in _WRAPPERS:
                if type(inner) is ast.Tuple and inner.elts:
                    inner = inner.elts[0]
                return self._annotation_types(inner, depth + 1)
            if last in _CONTAINERS:
                return ()
            found = self._type_name(base)  # a generic class: `Runtime[Context]` is a Runtime
            return (found,) if found else ()
        if cls is ast.BinOp and type(ann.op) is ast.BitOr:  # type: ignore[attr-defined]
            return joined(
                self._annotation_types(side, depth + 1)
                for side in (ann.left, ann.right)  # type: ignore[attr-defined]
                if not (type(side) is ast.Constant and side.value is None)
            )
        found = self._type_name(dotted(ann))
        return (found,) if found else ()

    def _element_types(self, ann: ast.AST | None, depth: int = 0) -> tuple[str, ...]:
        """`Sequence[Foo]`, `list[Foo] | None`, `Optional[Iterable[Foo]]`, `list[A | B]` -> Foo / A, B."""
        if ann is None or depth > 3:
            return ()
        cls = type(ann)
        if cls is ast.Subscript:
            base = dotted(ann.value)  # type: ignore[attr-defined]
            last = base.rsplit(".", 1)[-1] if base else None
            inner = ann.slice  # type: ignore[attr-defined]
            if last == "Union":
                members = inner.elts if type(inner) is ast.Tuple else [inner]
                return joined(self._element_types(member, depth + 1) for member in members)
            if type(inner) is ast.Tuple and inner.elts:
                inner = inner.elts[0]
            if last in _CONTAINERS:
                return self._annotation_types(inner, depth + 1)
            if last in _WRAPPERS:
                return self._element_types(inner, depth + 1)
            return ()
        if cls is ast.BinOp and type(ann.op) is ast.BitOr:  # type: ignore[attr-defined]
            return joined(self._element_types(side, depth + 1) for side in (ann.left, ann.right))  # type: ignore[attr-defined]
        if cls is ast.Constant and isinstance(ann.value, str):  # type: ignore[attr-defined]
            parsed = parse_annotation(ann.value.strip())  # type: ignore[attr-defined]
            return self._element_types(parsed, depth + 1) if parsed is not None else ()
        return ()

    def _set_local(self, name: str, types: tuple[str, ...], line: int) -> None:
        """`name = value` in the function: in its straight-line part the assigned types
        replace those known so far, in a branch or a loop they add to them (either
        branch may have run); declared types (annotations) stay."""
        locals_ = self.locals
        if locals_ is None:
            return
        known = locals_.get(name)
        if known is None:
            if types:
                locals_[name] = tuple((type_, line, False) for type_ in types)
            return
        if self.depth:
            kept = list(known)
        else:
            kept = [entry for entry in known if entry[2]]
        for type_ in types:
            if not any(entry[0] == type_ for entry in kept):
                kept.append((type_, line, False))
        if kept:
            locals_[name] = tuple(kept)
        else:
            locals_.pop(name, None)

    def _declare_local(self, name: str, types: tuple[str, ...], line: int) -> None:
        """`name: Foo` in the function: Foo whatever is assigned later."""
        if self.locals is None or not types:
            return
        kept = list(self.locals.get(name, ()))
        for type_ in types:
            if not any(entry[0] == type_ for entry in kept):
                kept.append((type_, line, True))
        self.locals[name] = tuple(kept)

    def _note_target(self, target: ast.AST, types: tuple[str, ...], line: int, scope: str) -> None:
        """Remember the types bound to `x` or `self.x` by an assignment."""
        if type(target) is _Name:
            if scope == MODULE_SCOPE:
                for type_ in types:
                    self._binding(MODULE_SCOPE, target.id, type_, line)  # type: ignore[attr-defined]
            else:
                self._set_local(target.id, types, line)  # type: ignore[attr-defined]
        elif (
            type(target) is _Attribute
            and type(target.value) is _Name  # type: ignore[attr-defined]
            and target.value.id in SELF_NAMES  # type: ignore[attr-defined]
            and self.klass is not None
        ):
            for type_ in types:
                self.klass.note(target.attr, type_, line, True)  # type: ignore[attr-defined]

    def _loop_variable(self, target: ast.AST, source: ast.AST, line: int) -> None:
        """`for x in xs` / `for x in xs or []` with `xs: Sequence[Foo]`: x is a Foo."""
        if type(source) is ast.BoolOp and source.values:  # type: ignore[attr-defined]
            source = source.values[0]  # type: ignore[attr-defined]
        if type(target) is _Name and type(source) is _Name and self.locals:
            element = self.locals.get(ELEMENTS + source.id)  # type: ignore[attr-defined]
            if element is not None:
                self._set_local(target.id, tuple(entry[0] for entry in element), line)  # type: ignore[attr-defined]

    def _binding(self, scope: str, name: str, type_: str, line: int) -> None:
        key = (scope, name, type_)
        if key not in self._binding_keys:
            self._binding_keys.add(key)
            self.bindings.append(BindingFact(scope, name, type_, line))

    def _receiver(self, scope: str, head: str, known: Types) -> None:
        for type_, line, _declared in known:
            self._binding(scope, head, type_, line)
