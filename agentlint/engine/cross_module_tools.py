"""Tools that only the whole project shows: functions of one module passed as tools in
another (`from .tools import lookup_order` then `Agent(tools=[lookup_order])`, the usual
layout of ADK, AutoGen, pydantic-ai and LlamaIndex applications), a framework's tool
decorator re-exported by a module of the project (`from app.tooling import tool`), and the
project's own tool framework (a tool base class or a registration decorator defined in
one module and used in others, ``facts.agents.project``).

The per-file agent model sees only its own module: it records a ``ToolRefFact`` for each
imported function passed as a tool, the candidate tool frameworks it defines
(``ToolFrameworkFact``) and its uses of the project's other names (``ToolUseFact``). The
project phase resolves those across modules, reads the files concerned again (one ``ast``
parse each) with what it learnt — the functions to declare, the inferred bases and
decorators, the re-exported names — and runs the model rules (AGL201, AGL202, AGL501) on
the newly found tools only. The new tools also join the facts the project rules see
(AGL901) and the `agentlint tools` inventory.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from agentlint.engine.analyze import agent_knowledge
from agentlint.engine.boundaries import ProjectMap, split_by_project
from agentlint.facts.agents.model import build as build_model
from agentlint.facts.agents.project import MIN_SUBCLASSES
from agentlint.facts.agents.sinks import sink_words
from agentlint.facts.module import extract_facts, import_facts
from agentlint.facts.source import decode, parse_lowered
from agentlint.facts.types import FileFacts, ToolFact, ToolFrameworkFact, ToolRefFact
from agentlint.knowledge import frameworks as fw
from agentlint.rules import registry
from agentlint.rules.api import ModelContext
from agentlint.rules.builtin import crash_diagnostic
from agentlint.rules.diagnostics import Diagnostic

_READ_ERRORS = (OSError, SyntaxError, ValueError, UnicodeError, LookupError, RecursionError, MemoryError)
_TOOL_TABLES = (fw.TOOL_DECORATORS, fw.TOOL_WRAPPERS, fw.AGENT_CONSTRUCTORS, fw.TOOL_CONTAINERS, fw.TOOL_BASE_CLASSES)


@dataclass
class _Plan:
    """What to look for again in one file."""

    refs: list[ToolRefFact] = field(default_factory=list)
    bases: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    decorators: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    """An imported name of the project -> the framework name it re-exports."""
    receivers: dict[str, str] = field(default_factory=dict)
    """An imported model, agent or factory of the project (as this file names it) -> its type."""
    helpers: dict[str, str] = field(default_factory=dict)
    """An imported function of the project that always calls a model -> that call."""
    sinks: dict[str, tuple[str, str]] = field(default_factory=dict)
    """An imported function of the project that reaches an irreversible call -> (kind, call)."""


class _Modules:
    """Module name -> path, for the project's Python files. A module imported under a
    package name that its folder does not make a package (`from app.state import X`
    with no `app/__init__.py`, run from `app/`'s parent) is found by its path."""

    def __init__(self, facts: Mapping[str, FileFacts]) -> None:
        self._by_name: dict[str, str] = {}
        self._by_last: dict[str, list[str]] = {}
        for path, file_facts in facts.items():
            if file_facts is not None and file_facts.module and not path.endswith(".ipynb"):
                self._by_name.setdefault(file_facts.module, path)
                self._by_last.setdefault(file_facts.module.rpartition(".")[2], []).append(path)

    def get(self, module: str) -> str | None:
        found = self._by_name.get(module)
        if found is not None or "." not in module:
            return found
        tails = ("/" + module.replace(".", "/") + ".py", "/" + module.replace(".", "/") + "/__init__.py")
        paths = [p for p in self._by_last.get(module.rpartition(".")[2], ()) if p.replace("\\", "/").endswith(tails)]
        return paths[0] if len(paths) == 1 else None


def _modules(facts: Mapping[str, FileFacts]) -> _Modules:
    return _Modules(facts)


def resolve(facts: Mapping[str, FileFacts]) -> dict[str, list[ToolRefFact]]:
    """Path of the defining module -> the references to its functions, for the
    functions that are not already tools there."""
    by_module = _modules(facts)
    out: dict[str, list[ToolRefFact]] = {}
    for file_facts in facts.values():
        for ref in file_facts.tool_refs if file_facts is not None else ():
            module, _, name = ref.qualified.rpartition(".")
            path = by_module.get(module)
            if path is None or "." in name:
                continue
            if any(t.name == name for t in facts[path].tools):
                continue
            out.setdefault(path, []).append(ref)
    return out


class _Names:
    """Where a name used in one module of the project comes from: a candidate tool
    framework of the project, or a framework name re-exported by a project module."""

    def __init__(self, facts: Mapping[str, FileFacts], knowledge=None, read: set[str] | None = None) -> None:
        self.facts = facts
        self.knowledge = knowledge
        self.read = read
        """The paths of the modules read (``read_module``)."""
        self._helpers: dict[str, dict[str, str]] = {}
        self._sinks: dict[str, dict[str, tuple[str, str]]] = {}
        self.by_module = _modules(facts)
        self.candidates: dict[str, ToolFrameworkFact] = {}
        for file_facts in facts.values():
            for candidate in file_facts.tool_frameworks if file_facts is not None else ():
                self.candidates.setdefault(candidate.qualified, candidate)
        self._imports: dict[str, dict[str, str]] = {}
        self.receivers: dict[str, str] = {}
        for file_facts in facts.values():
            for name, type_ in file_facts.model_receivers if file_facts is not None else ():
                self.receivers.setdefault(name, type_)

    def helper(self, used: str) -> str | None:
        """The model call an imported function (`app.summary.summarise()`) always makes:
        its module is read (once) when a tool calls one of its functions."""
        return self._imported(
            used, self._helpers, lambda model: {q.rpartition(".")[2]: t for q, t in model.model_helpers()},
            # a module calling a model imports the SDK or framework it calls
            read_if=lambda path: bool(self.facts[path].frameworks),
        )

    def sink(self, used: str) -> tuple[str, str] | None:
        """The irreversible call an imported function (`app.mail.send_reply()`) reaches with
        nothing before it: its module is read (once) when a tool calls one of its functions."""
        return self._imported(
            used, self._sinks, lambda model: {q.rpartition(".")[2]: (k, t) for q, k, t in model.sink_helpers()},
            # nothing irreversible can be called there: not worth a parse
            parse_if=lambda content: bool(sink_words(self.knowledge).search(content)),
        )

    def _imported(
        self, used: str, memo: dict, table: Callable[[Any], dict], *,
        read_if: Callable[[str], bool] | None = None, parse_if: Callable[[bytes], bool] | None = None,
    ) -> Any:
        """What ``table`` says of the function ``used`` names (directly or through a
        re-export), from the agent model of its module, built once per module (``memo``
        keeps each module's table): only for a module whose path passes ``read_if`` and
        whose bytes pass ``parse_if``."""
        name = used[:-2] if used.endswith("()") else used
        for target in (name, self.reexported(name)):
            if target is None:
                continue
            module = target.rpartition(".")[0]
            path = self.by_module.get(module)
            if path is None or (read_if is not None and not read_if(path)):
                continue
            if module not in memo:
                memo[module] = {}
                try:
                    content = read_module(path, self.read)
                    if parse_if is None or parse_if(content):
                        text = decode(content)
                        tree = parse_lowered(text, path)
                        facts = extract_facts(path, tree, text, project=False)  # what the model reads
                        memo[module] = table(build_model(tree, facts, text, self.knowledge))
                except _READ_ERRORS:
                    pass
            found = memo[module].get(target.rpartition(".")[2])
            if found is not None:
                return found
        return None

    def receiver(self, used: str) -> str | None:
        """The type of an imported model, agent or factory result (`app.llm.client`,
        `app.llm.make_llm()`), also through a re-export."""
        found = self.receivers.get(used)
        if found is not None:
            return found
        call = "()" if used.endswith("()") else ""
        target = self.reexported(used[: len(used) - len(call)])
        return self.receivers.get(target + call) if target else None

    def candidate(self, qualified: str) -> ToolFrameworkFact | None:
        """The candidate ``qualified`` names: itself, or re-exported by a package of the
        project (`app.tools.Tool` for `app.tools.base.Tool`)."""
        found = self.candidates.get(qualified)
        if found is not None:
            return found
        target = self.reexported(qualified)
        return self.candidates.get(target) if target else None

    def reexported(self, qualified: str, depth: int = 0) -> str | None:
        """What ``qualified`` (`app.tooling.tool`) is, when its module imports it from
        elsewhere (`from langchain_core.tools import tool`, `from .base import Tool`)."""
        module, _, name = qualified.rpartition(".")
        path = self.by_module.get(module)
        if depth > 3 or path is None:
            return None
        target = {i.local: i.qualified for i in self.facts[path].imports}.get(name)
        if target is None:
            target = self._module_imports(module).get(name)
        elif self.read is not None and not fw.framework_of(target):
            # an import of the project's own, which only the facts of a file just analysed
            # keep (a checked file's): no digest of project facts holds it, as none holds
            # the text of a module read
            self.read.add(path)
        if target is None or target == qualified:
            return None
        return self.reexported(target, depth + 1) or target

    def _module_imports(self, module: str) -> dict[str, str]:
        """Every import of a module of the project: the project facts keep only the
        framework imports, so a module's own re-exports (`from .base import Tool`) are
        read from its file, once."""
        found = self._imports.get(module)
        if found is None:
            path = self.by_module.get(module) or ""
            found = {}
            try:
                text = decode(read_module(path, self.read))
                found = {i.local: i.qualified for i in import_facts(path, parse_lowered(text, path)).imports}
            except _READ_ERRORS:
                pass
            self._imports[module] = found
        return found


def read_module(path: str, read: set[str] | None) -> bytes:
    """A module's bytes, its path added to ``read``: what the project phase finds then
    depends on the module's text, not only on its facts, and a remembered phase holds
    only while that text stays the same (``engine.run``)."""
    if read is not None:
        read.add(path)
    with open(path, "rb") as fh:
        return fh.read()


def _plans(facts: Mapping[str, FileFacts], knowledge, read: set[str] | None = None) -> dict[str, _Plan]:
    plans: dict[str, _Plan] = {}
    for path, refs in resolve(facts).items():
        plans.setdefault(path, _Plan()).refs = refs
    if not any(f.tool_uses or f.tool_frameworks for f in facts.values() if f is not None):
        return plans
    names = _Names(facts, knowledge, read)
    subclasses = {q: c.subclasses for q, c in names.candidates.items()}
    resolved: dict[tuple[str, str], ToolFrameworkFact | str | None] = {}
    for path, file_facts in facts.items():
        for use in file_facts.tool_uses if file_facts is not None else ():
            if use.kind == "receiver":
                if path.endswith(".ipynb"):
                    continue
                type_ = names.receiver(use.qualified)
                if type_ is not None:
                    plans.setdefault(path, _Plan()).receivers[use.qualified] = type_
                helper = names.helper(use.qualified) if use.qualified.endswith("()") else None
                if helper is not None:
                    plans.setdefault(path, _Plan()).helpers[use.qualified[:-2]] = helper
                sink = names.sink(use.qualified) if use.qualified.endswith("()") else None
                if sink is not None:
                    plans.setdefault(path, _Plan()).sinks[use.qualified[:-2]] = sink
                continue
            key = (path, use.qualified)
            if key not in resolved:
                found: ToolFrameworkFact | str | None = names.candidate(use.qualified)
                if found is None:
                    target = names.reexported(use.qualified)
                    if target is not None and any(_matches(target, table) for table in _TOOL_TABLES):
                        found = target  # a framework's tool name, re-exported by the project
                resolved[key] = found
            found = resolved[key]
            if isinstance(found, ToolFrameworkFact) and use.kind == "base" and found.kind == "base":
                subclasses[found.qualified] += 1
    for (path, qualified), found in resolved.items():
        if found is None or path.endswith(".ipynb"):
            continue
        if isinstance(found, str):
            plans.setdefault(path, _Plan()).aliases[qualified] = found
        elif found.kind == "decorator":
            plans.setdefault(path, _Plan()).decorators[qualified] = found.qualified
        elif "confident" in found.evidence and subclasses[found.qualified] >= MIN_SUBCLASSES:
            plans.setdefault(path, _Plan()).bases[qualified] = (found.qualified, found.methods)
    # a base confirmed only by the subclasses of other modules: its own module's too
    for qualified, candidate in names.candidates.items():
        if (candidate.kind == "base" and "confident" in candidate.evidence and candidate.subclasses
                and candidate.subclasses < MIN_SUBCLASSES <= subclasses[qualified]):
            path = names.by_module.get(qualified.rpartition(".")[0])
            if path is not None:
                plans.setdefault(path, _Plan()).bases[qualified] = (qualified, candidate.methods)
    return plans


def _matches(qualified: str, table: Mapping[str, object]) -> bool:
    candidates = fw.by_last_segment(table).get(qualified.rpartition(".")[2], ())
    return any(fw.matches(qualified, pattern) for pattern, _value in candidates)


def declare(
    facts: Mapping[str, FileFacts], settings, *, with_rules: bool = True, read: set[str] | None = None,
) -> tuple[list[Diagnostic], dict[str, FileFacts]]:
    """Findings of the model rules on the tools found across modules, and the facts
    with those tools added. ``read`` collects the paths of the modules read."""
    knowledge = agent_knowledge(settings.knowledge)
    plans = _plans(facts, knowledge, read)
    if not plans:
        return [], dict(facts)
    updated = dict(facts)
    out: list[Diagnostic] = []
    for path, plan in sorted(plans.items()):
        try:
            text = decode(read_module(path, read))
            tree = parse_lowered(text, path)
            file_facts = extract_facts(path, tree, text, project=False)  # what the model and its rules read
            if plan.aliases:
                file_facts = replace(file_facts, imports=tuple(
                    replace(i, qualified=plan.aliases.get(i.qualified, i.qualified)) for i in file_facts.imports))
            learnt = plan.bases or plan.decorators or plan.receivers or plan.helpers or plan.sinks
            here = knowledge.with_inferred(plan.bases, plan.decorators, plan.receivers, plan.helpers, plan.sinks) \
                if learnt else knowledge
            model = build_model(tree, file_facts, text, here)
            added = model.declare_tools(plan.refs)
            known = {(t.name, t.line) for t in facts[path].tools}
            added += [t for t in model.tools if (t.fact.name, t.fact.line) not in known and t not in added]
            if (plan.receivers or plan.helpers) and with_rules:
                # models imported from other modules: the model calls the file's own tools
                # make through them, beyond what the file's own check reported
                out += _through_imports(path, text, tree, file_facts, knowledge, model, added, settings)
        except _READ_ERRORS:
            continue
        if plan.sinks:
            # irreversible calls reached through other modules: every tool's sinks again
            resinked = {(f.name, f.line): f for f in model.with_sinks(tuple(t.fact for t in model.tools))}
            updated[path] = replace(facts[path], tools=tuple(
                replace(f, sinks=resinked[(f.name, f.line)].sinks) if (f.name, f.line) in resinked else f
                for f in facts[path].tools))
        if not added:
            continue
        new_facts: tuple[ToolFact, ...] = model.with_sinks(tuple(t.fact for t in added))
        updated[path] = replace(updated[path], tools=tuple(sorted(
            (*updated[path].tools, *new_facts), key=lambda f: (f.line, f.column))))
        if not with_rules:
            continue
        model.tools = added  # the rules look at the newly found tools only
        for cls in registry.model_rules():
            if cls.meta.code not in settings.enabled or not cls.about_tools:
                continue  # AGL301 reads functions, not tools: it has run on this file already
            try:
                out += cls(ModelContext(path, text, settings.rule_settings.get(cls.meta.code, {}), model)).check()
            except Exception as exc:
                out.append(crash_diagnostic(path, cls.meta, exc))
    return out, updated


def _through_imports(path: str, text: str, tree, file_facts: FileFacts, knowledge, model, added, settings) -> list[Diagnostic]:
    rule = next((cls for cls in registry.model_rules() if cls.meta.code == "AGL501"), None)
    if rule is None or rule.meta.code not in settings.enabled:
        return []
    rule_settings = settings.rule_settings.get(rule.meta.code, {})
    try:
        alone = build_model(tree, file_facts, text, knowledge)
        before = {(d.line, d.span.start.column, d.message) for d in rule(ModelContext(path, text, rule_settings, alone)).check()}
        every = model.tools
        model.tools = [t for t in every if t not in added]
        found = rule(ModelContext(path, text, rule_settings, model)).check()
        model.tools = every
    except Exception as exc:
        return [crash_diagnostic(path, rule.meta, exc)]
    return [d for d in found if (d.line, d.span.start.column, d.message) not in before]


def declare_in_projects(
    facts: Mapping[str, FileFacts], settings, *, with_rules: bool = True, projects: ProjectMap | None = None,
    read: set[str] | None = None,
) -> tuple[list[Diagnostic], list[dict[str, FileFacts]]]:
    """``declare`` within each project (``engine.boundaries``): the findings, and each
    project's facts with the tools found across modules added. ``projects``: the run's
    project map, when it has one (its folders read already); ``read`` collects the
    paths of the modules read."""
    found: list[Diagnostic] = []
    groups = split_by_project(facts, projects or ProjectMap(settings))
    for index, group in enumerate(groups):
        diagnostics, groups[index] = declare(group, settings, with_rules=with_rules, read=read)
        found += diagnostics
    return found, groups
