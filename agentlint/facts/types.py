"""Facts: what a file contributes to the project phase and to `explain`. Plain data only.

Frozen dataclasses that round-trip through JSON (the cache and the process pool carry
them), read from one file's ``ast`` by the modules of this package.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass
from dataclasses import fields as dataclass_fields
from typing import Any, Callable

from agentlint.knowledge.frameworks import framework_of

FACTS_VERSION = 18
"""Version of what the extractor produces; part of the settings fingerprint (cache key).
It lives with the types, not the extractor, so that a run answered from the cache can
compute its key without loading the extractor."""


@dataclass(frozen=True)
class ImportFact:
    """`import a.b as c` -> local `c` bound to `a.b`; `from a import b as c` -> `c` -> `a.b`."""

    local: str
    qualified: str
    line: int


@dataclass(frozen=True)
class DefinitionFact:
    """A function, method, class or module-level assignment."""

    name: str
    """Dotted path inside the module: `f`, `Cls`, `Cls.method`, `CONSTANT`."""
    kind: str
    """`function`, `method`, `class`, `variable` (module level) or `attribute` (an
    assignment or annotated field in a class body, named `Cls.NAME`; or an instance
    attribute: the first `self.NAME = ...` in the class's methods, when the class body
    does not define NAME, its lines those of that assignment statement)."""
    line: int
    end_line: int
    decorators: tuple[str, ...] = ()
    """Decorators as resolved dotted names (through this module's imports)."""
    bases: tuple[str, ...] = ()
    returns: tuple[str, ...] = ()
    """Functions and methods: the types they return, as resolved dotted names (at most
    8): the classes of the return annotation (every member of a union), else those of
    the function's own `return Foo(...)` / `return x` (x of a known type) statements; the
    enclosing class for `return cls(...)`, `return self` and `-> Self`. A name may be a
    function or method (`return make()`), whose own returns tell the type."""


@dataclass(frozen=True)
class CallFact:
    """A call made inside `scope` (a definition name, or `<module>`)."""

    scope: str
    callee: str
    """The callee as a dotted name with the first segment resolved through imports; a
    call through a chain keeps its calls and subscripts (`pkg.Foo().run`,
    `agents[reviewer].run`, `self.cmd_*` for a method looked up by a built name; see
    ``facts.bindings``)."""
    line: int
    args: tuple[str, ...] = ()
    """What the call passes that has a type expression (``facts.bindings``): `0=self`,
    `editor=pkg.Editor()` (positions from 0, keywords by name)."""


@dataclass(frozen=True)
class ReferenceFact:
    """A read of a name that is module-level here or imported, from inside `scope`."""

    scope: str
    name: str
    """Resolved dotted name (imported names carry their module)."""
    line: int


@dataclass(frozen=True)
class BindingFact:
    """What a receiver is, where that is simple to know: `x = Foo()`, `x: Foo`,
    `self.x = Foo()`. `x.m()` in `scope` can then be read as `Foo.m`."""

    scope: str
    """The definition the binding holds in: a function, `<module>`, or a class for
    `self.NAME` bindings (which hold in every method of that class)."""
    name: str
    """`x`, or `self.x` for an instance attribute."""
    type: str
    """A type expression (``facts.bindings``): the resolved dotted name of an annotation
    (`pkg.mod.Foo`), a call (`pkg.mod.Foo()`), a chain (`self.make().agent`), a
    container (`[reviewer]pkg.Reviewer()`), a parameter (`{Cls.__init__:1:editor}`); ""
    for a local of unknown type named like an imported package."""
    line: int


@dataclass(frozen=True)
class ParamFact:
    """A parameter of a tool, as the framework sees it."""

    name: str
    line: int
    column: int
    """1-based, in characters."""
    injected: str = ""
    """Why the framework fills it (`annotation RunContext`, `default TokenClaim(...)`,
    `reserved name`), or "" when the model fills it."""
    annotation: str = ""
    guard: str = ""
    """What checks this parameter before the tool runs (a `before_tool_callback` that
    reads it), or ""."""


@dataclass(frozen=True)
class ToolFact:
    """A tool: a def (or a JSON schema) whose parameters a model fills."""

    name: str
    """`fn`, `Cls.method`, or the schema's `name` for a JSON tool schema."""
    framework: str
    how: str
    """`decorator @x`, `BaseTool subclass`, `FunctionTool(...)`, `tools=[...] of Agent`,
    `JSON schema`, ..."""
    line: int
    end_line: int
    column: int = 1
    params: tuple[ParamFact, ...] = ()
    schema: str = ""
    """Set when an explicit schema (not the signature) says what the model fills; the
    params are then the schema's fields, or empty when the schema is not in this file."""
    approval: str = ""
    """The human approval or input check the tool is declared with
    (`needs_approval=True`, `approval_mode="always_require"`), or ""."""
    sinks: tuple["SinkFact", ...] = ()
    """The irreversible effects the tool reaches, each with what protects it (AGL203,
    `agentlint tools`)."""

    @staticmethod
    def from_json(d: dict[str, Any]) -> "ToolFact":
        return ToolFact(**{**d, "params": tuple(ParamFact(**p) for p in d["params"]),
                           "sinks": tuple(SinkFact.from_json(s) for s in d.get("sinks", ()))})


@dataclass(frozen=True)
class SinkFact:
    """An irreversible call a tool reaches (``facts.agents.sinks``)."""

    kind: str
    """`payment`, `outgoing message`, `deletion`, `deploy or push`, `configured call`."""
    text: str
    """How the call reads (`stripe.Refund.create`)."""
    line: int
    """Where the call is (in the tool, or in the helper that makes it)."""
    at_line: int
    at_column: int
    """The call in the tool's own body that reaches it (1-based; the column in characters)."""
    steps: tuple[str, ...] = ()
    """The helpers on the way (`_issue_refund`)."""
    protection: str = ""
    """The guard or the human's decision in code before it (guard `if amount > LIMIT`
    (line 12)), or ""."""

    def describe(self) -> str:
        through = f", through {' → '.join(f'`{s}`' for s in self.steps)}" if self.steps else ""
        return f"{self.kind} `{self.text}` (line {self.line}{through})"

    @staticmethod
    def from_json(d: dict[str, Any]) -> "SinkFact":
        return SinkFact(**{**d, "steps": tuple(d.get("steps", ()))})


@dataclass(frozen=True)
class ToolRefFact:
    """A function of another module passed as a tool here (`tools=[lookup_order]` with
    `from .tools import lookup_order`): the project phase makes it a tool in its module."""

    qualified: str
    framework: str
    how: str
    injected: tuple[tuple[str, str], ...] = ()
    first_injected: str = ""
    line: int = 0
    column: int = 1
    approval: str = ""
    guards: tuple[tuple[str, str], ...] = ()
    """(parameter, what checks it) for the parameters a callback re-validates."""

    @staticmethod
    def from_json(d: dict[str, Any]) -> "ToolRefFact":
        return ToolRefFact(**{**d, "injected": tuple((k, v) for k, v in d.get("injected", ())),
                              "guards": tuple((k, v) for k, v in d.get("guards", ()))})


@dataclass(frozen=True)
class ToolFrameworkFact:
    """A project's own way of declaring tools, read from its code: a tool base class
    (name, description, an argument schema and an abstract execute-like method) or a
    registration decorator (`@register_tool` storing the function in a registry)."""

    qualified: str
    """`pkg.tools.base.BaseTool`, `pkg.registry.register_tool`."""
    kind: str
    """`base` or `decorator`."""
    line: int
    methods: tuple[str, ...] = ()
    """For a base: the execute-like methods a subclass implements (model-facing)."""
    evidence: tuple[str, ...] = ()
    """What the class declares: `name`, `description`, `schema`, `abstract run`, ..."""
    subclasses: int = 0
    """Subclasses in its own module that implement one of ``methods``."""


@dataclass(frozen=True)
class ToolUseFact:
    """A use of an imported name of the project that may be a project-defined tool
    framework: a class deriving from it (and implementing an execute-like method), a
    def decorated with it, a function passed to it (`register_tool(fn)`)."""

    qualified: str
    kind: str
    """`base`, `decorator`, `call`, or `receiver` (a call on or of an imported name in a
    module with tools: `summariser.run(...)`, `make_llm()`)."""
    line: int


@dataclass(frozen=True)
class AgentEdgeFact:
    """An agent nested under another as a tool (`sub.as_tool()`, `AgentTool(agent=sub)`,
    a tool whose body runs `sub`, `managed_agents=[sub]`)."""

    target: str
    """The nested agent's id (see ``AgentFact.id``)."""
    how: str
    line: int
    column: int = 1


@dataclass(frozen=True)
class AgentFact:
    """An agent built in this file, with the agents nested under it."""

    id: str
    """`pkg.mod.name` for a module-level agent, `pkg.mod.factory()` for one returned by a
    function, `pkg.mod.func:name` for one local to a function."""
    framework: str
    line: int
    children: tuple[AgentEdgeFact, ...] = ()

    @staticmethod
    def from_json(d: dict[str, Any]) -> "AgentFact":
        return AgentFact(**{**d, "children": tuple(AgentEdgeFact(**c) for c in d["children"])})


@dataclass(frozen=True)
class CostTermFact:
    """One priced term of a cost formula: a token count times a price (see ``facts.cost``).

    A formula such as `(prompt - cached) * p_in + cached * p_cached + completion * p_out`
    contributes one term per token operand after the products are distributed."""

    scope: str
    """The place: a function or method name (nested functions count as their outer
    function), or `<module>`."""
    role: str
    """`input`, `output`, `cached`, `cache-write`, `reasoning`, `audio`, `total` or `tokens`;
    `price` for a price that stands where a token count belongs (`(prompt_tokens -
    cached_price) * input_price`: ``field`` is that price)."""
    field: str
    """The usage field as written (`prompt_tokens`, `input_tokens_details.cached_tokens`,
    `len(...)`, `count_tokens()`, or a loosely named count such as `usage.input` or `tk`),
    after following local assignments."""
    sign: int
    """+1 or -1 (a subtracted term: `(prompt - cached) * rate`)."""
    price: str
    """What the token count is multiplied by: `name` (a price-like name, subscript or
    key) or `literal`."""
    unit: str
    """The unit the formula assumes for its price, normalised: `token` (per token: no
    divisor, or a divisor matching the price's declared unit as in `/ 1000 * per_1k`),
    `1k` / `1M` (divided by 1000 / 1,000,000 with a price of undeclared unit), or
    `mismatch` (a divisor that contradicts the price's declared unit)."""
    literal: float | None
    """The per-token value of a literal price (`0.03` after `/ 1000` is 3e-05)."""
    line: int
    column: int
    end_line: int
    end_column: int
    """The span of the whole arithmetic expression: terms of one expression share it."""
    rate: str = ""
    """The price operand as written (`info.input_cost_per_token`, `prices['input']`),
    shortened; empty for a literal price."""


@dataclass(frozen=True)
class ModelCallFact:
    """A model call or an agent run (the forms of ``knowledge.model_calls``), for
    `agentlint calls` and AGL106."""

    scope: str
    """The place, as for ``CostTermFact.scope``: a function or method (nested functions
    count as their outer function), or `<module>`."""
    function: str
    """The innermost function holding the call (`Agent.run.<locals>.step` reads `step`),
    empty at module level."""
    form: str
    """How the call reads (`client.chat.completions.create`, `litellm.completion`)."""
    provider: str
    """The framework or SDK (`openai`, `anthropic`, `litellm`, `langchain`, ...), empty
    when the receiver could not be typed."""
    kind: str
    """`model` (a model call) or `agent` (an agent run, a compiled LangGraph graph run)."""
    accounted: str
    """How the place accounts for what the call used, empty when it does not: `usage`
    (it reads the response's usage), `cost` (it computes or records a cost), `callback`
    (it passes a usage or cost callback), `via NAME` (its only callers in the module,
    NAME, account for it)."""
    line: int
    column: int
    end_line: int
    end_column: int
    client: str = ""
    """The receiver's type as a dotted name (`openai.OpenAI`, `app.llm.MeteredLLM`),
    empty when it was not typed: a call on the project's own instrumented client goes
    through it."""


@dataclass(frozen=True)
class SiteFact:
    """A located site with a kind and a name (cost set to None, a hard-coded price)."""

    scope: str
    kind: str
    name: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class PromptSiteFact:
    """One prompt unit of a place (see ``facts.prompts``); ``what`` says which kind:

    - `text`: literal prompt text (a string constant, an f-string, `dedent(...)`,
      `PromptTemplate.from_template(...)`, ...) going to a prompt sink; ``text`` is its
      normalised text, ``shingles`` its shingles (``facts.prompt_text``); ``shape`` is
      `fallback` for text that reads as a prompt but goes to no prompt sink;
    - `blocks`: a prompt assembled from parts (an f-string with placeholders, `+`,
      `.format(...)`, a prompt file read); ``blocks`` are the module-level names it reads
      (resolved dotted names) and the prompt files (`file:NAME`), named templates
      (`template:NAME`) and prompts loaded by name (`prompt:NAME`) it uses; ``shape`` is
      its own literal text, normalised (placeholders as `{}`); ``text`` the lines of the
      local assignments its parts were followed to (comma-separated);
    - `render`: a template of another scope rendered (`TEMPLATE.format(...)`,
      `templates.tone.format(...)`, `prompt.invoke(...)`); ``blocks`` holds the
      template's resolved dotted name, ``shape`` the string literals passed to it
      (`key=value`, sorted), ``text`` the fragment as written (the conditional around
      it included), for saying how two copies differ;
    - `messages`: a message list written out (two messages or more); ``blocks`` holds
      one `ROLE=KEY` entry per message, KEY saying where the content comes from
      (`const:NAME`, `tmpl:NAME`, `call:NAME`, `text:DIGEST`, `param:FUNCTION:INDEX:NAME`,
      `attr:CLASS.NAME`, or `dyn` for anything else); ``text`` the lines the contents
      were written on (comma-separated: a local name followed to its assignment);
    - `argument`: a call passing a prompt to a function or class of the project, so
      that a message list's `param:` entries can be followed to what the callers pass;
      ``shape`` is the callee's resolved dotted name, ``text`` the parameter (its
      0-based position, or its name), ``blocks`` holds the value's KEY.
    """

    scope: str
    kind: str
    """Where the prompt goes: `instructions=`, `a system message`, `SYSTEM_PROMPT = ...`."""
    blocks: tuple[str, ...]
    shape: str
    line: int
    column: int
    end_line: int
    end_column: int
    what: str = "blocks"
    scope_line: int = 0
    """The line of the definition ``scope`` names (0 for module-level code): two
    definitions of one name (a notebook's cells) are two places."""
    text: str = ""
    shingles: tuple[int, ...] = ()

    @staticmethod
    def from_json(d: dict[str, Any]) -> "PromptSiteFact":
        return PromptSiteFact(**{**d, "blocks": tuple(d["blocks"]), "shingles": tuple(d.get("shingles", ()))})


def _plain(value: Any) -> Any:
    """``dataclasses.asdict`` without its deep copies (facts are plain frozen data):
    the facts of every file are encoded for the cache, so this is on the hot path."""
    cls = type(value)
    if cls in _SCALAR_TYPES:
        return value
    if cls is tuple or cls is list:
        return [_plain(v) for v in value]
    if hasattr(cls, "__dataclass_fields__"):
        return {k: _plain(v) for k, v in value.__dict__.items()}
    return value


_SCALAR_TYPES = frozenset({str, int, bool, float, type(None)})


@dataclass(frozen=True)
class FileFacts:
    """Everything the project phase and `explain` know about one file."""

    module: str
    """The dotted module name guessed from the path (`pkg/sub/mod.py` -> `pkg.sub.mod`)."""
    imports: tuple[ImportFact, ...] = ()
    definitions: tuple[DefinitionFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    references: tuple[ReferenceFact, ...] = ()
    annotation_references: tuple[ReferenceFact, ...] = ()
    """The references (also in ``references``) that sit in a type annotation of an
    assignment (`x: Foo = ...`): a use by name that runs nothing."""
    bindings: tuple[BindingFact, ...] = ()
    main_blocks: tuple[tuple[int, int], ...] = ()
    """Line ranges of `if __name__ == "__main__":` blocks at module level."""
    tools: tuple[ToolFact, ...] = ()
    agents: tuple[AgentFact, ...] = ()
    tool_refs: tuple[ToolRefFact, ...] = ()
    tool_frameworks: tuple[ToolFrameworkFact, ...] = ()
    tool_uses: tuple[ToolUseFact, ...] = ()
    library_tools: int = 0
    """Tools a framework provides that this file gives an agent (`tools=[DuckDuckGoTools()]`)."""
    model_receivers: tuple[tuple[str, str], ...] = ()
    """Models and agents this module offers to others: (`pkg.mod.client` or
    `pkg.mod.make_llm()` for a factory, the receiver's type)."""
    frameworks: tuple[str, ...] = ()
    """The agent frameworks this file imports (`openai-agents`, `langchain`, ...)."""
    complete: bool = True
    """False when the file could not be parsed and the facts are empty for that reason."""
    cost_terms: tuple[CostTermFact, ...] = ()
    cost_nones: tuple[SiteFact, ...] = ()
    """Cost values set to None (AGL104)."""
    price_literals: tuple[SiteFact, ...] = ()
    """Hard-coded prices: model-to-price tables and price constants (AGL105)."""
    model_calls: tuple[ModelCallFact, ...] = ()
    """Model calls and agent runs, with how their place accounts for usage (AGL106,
    `agentlint calls`)."""
    prompt_sites: tuple[PromptSiteFact, ...] = ()
    prompt_blocks: tuple[str, ...] = ()
    """Module-level (and class-level) names defined here that hold prompt text or
    templates (dotted: `pkg.prompts.SYSTEM_PROMPT`, `pkg.agent.Agent.PROMPT`)."""
    approval_wiring: str = ""
    """An approval this module wires for the tools it runs (`interrupt_before=[...]`,
    `human_input=True`), described, or "" (AGL203)."""
    approved_names: tuple[str, ...] = ()
    """Names a function of this module that asks a human mentions (`if call["name"] in
    ("send_email", ...): interrupt(...)`): the tools approved where they are dispatched."""

    def to_json(self) -> dict[str, Any]:
        return _plain(self)

    def project_json(self, *, framework_imports: bool = False) -> dict[str, Any]:
        """What ``project_from_json`` reads, in JSON, without the fields at their default
        (but the module, its imports and whether it parsed). Most files of a project hold
        few kinds of project facts, and a partial run reads every other file's: the
        empty lists were a third of what it read. ``framework_imports``: only those
        imports, as ``project_from_json`` keeps them (the same for facts decoded from
        the cache and facts just extracted)."""
        out: dict[str, Any] = {}
        for key in _PROJECT_FIELDS:
            value = getattr(self, key)
            if key in _ALWAYS_WRITTEN or value != _FILE_FACTS_DEFAULTS[key]:
                out[key] = _plain(value)
        if framework_imports:
            out["imports"] = _framework_imports(out["imports"])
        return out

    @staticmethod
    def project_from_json(data: dict[str, Any], *, framework_imports: bool = False) -> "FileFacts":
        """Only what the project rules read (module, framework imports, tools, agents,
        cost and prompt facts): decoding the definitions, calls and references of every
        file is most of a warm run's time and no project rule needs them.
        ``framework_imports``: ``data`` is what ``project_json`` wrote, whose imports
        are the framework imports already."""
        return FileFacts._decode(data, full=False, framework_imports=framework_imports)

    @staticmethod
    def from_context(data: dict[str, Any], only: frozenset[str] | None = None) -> "FileFacts":
        """The project facts as a partial run's context keeps them
        (``engine.cache.context_entry``: those of ``project_json``, each import a row
        [local, qualified, line], and none when the file has none). ``only``: the
        project facts to decode, when the caller reads no other (the others keep their
        defaults)."""
        return FileFacts._decode(data, full=False, framework_imports=True, only=only, import_rows=True)

    @staticmethod
    def from_json(data: dict[str, Any]) -> "FileFacts":
        return FileFacts._decode(data, full=True)

    @staticmethod
    def _decode(
        data: dict[str, Any], *, full: bool, framework_imports: bool = False, only: frozenset[str] | None = None,
        import_rows: bool = False,
    ) -> "FileFacts":
        common: dict[str, Any] = {"module": data["module"], "complete": data["complete"]}
        if only is not None and "imports" not in only:
            common["imports"] = ()
        elif import_rows:
            common["imports"] = tuple([ImportFact(*row) for row in data.get("imports", ())])
        else:
            imports = data["imports"]
            if not full and not framework_imports:
                # only the framework imports (AGL901 names the first one): every file's
                # imports would be most of the project facts' memory
                imports = _framework_imports(imports)
            common["imports"] = tuple([ImportFact(d["local"], d["qualified"], d["line"]) for d in imports])
        # A partial run decodes the project facts of every file of the project, most of
        # them with few kinds of facts: an absent or empty list keeps the field's default.
        for key, decode in _PROJECT_LISTS:
            items = data.get(key)
            if items and (only is None or key in only):
                common[key] = tuple(items) if decode is None else tuple(map(decode, items))
        for key in ("library_tools", "approval_wiring"):
            if key in data and (only is None or key in only):
                common[key] = data[key]
        if not full:
            return _project_facts(common)
        return FileFacts(
            **common,
            definitions=tuple(
                DefinitionFact(
                    **{
                        **d,
                        "decorators": tuple(d["decorators"]),
                        "bases": tuple(d["bases"]),
                        "returns": tuple(d.get("returns", ())),
                    }
                )
                for d in data["definitions"]
            ),
            calls=tuple(CallFact(**{**d, "args": tuple(d.get("args", ()))}) for d in data["calls"]),
            references=tuple(ReferenceFact(**d) for d in data["references"]),
            annotation_references=tuple(ReferenceFact(**d) for d in data.get("annotation_references", ())),
            bindings=tuple(BindingFact(**d) for d in data.get("bindings", ())),
            main_blocks=tuple((b[0], b[1]) for b in data.get("main_blocks", ())),
        )


def _framework_imports(imports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The imports (in JSON) of a framework's names: those the project facts keep."""
    return [d for d in imports if framework_of(d["qualified"])]


def _project_facts(fields: dict[str, Any]) -> FileFacts:
    """``FileFacts(**fields)``, every field not in ``fields`` at its default, built
    without ``__init__``: a frozen dataclass's sets each of its 27 fields through
    ``object.__setattr__``, which cost a partial run 5 µs per other file of its project
    (7 ms for a 1,200-file one), while most of those fields keep their defaults."""
    facts = object.__new__(FileFacts)
    facts.__dict__.update(_FILE_FACTS_DEFAULTS)
    facts.__dict__.update(fields)
    return facts


def _by_keywords(cls: type) -> Callable[[dict[str, Any]], Any]:
    return lambda d: cls(**d)


_PROJECT_LISTS: "tuple[tuple[str, Callable[[Any], Any] | None], ...]" = (
    ("tools", ToolFact.from_json),
    ("agents", AgentFact.from_json),
    ("tool_refs", ToolRefFact.from_json),
    ("tool_frameworks",
     lambda d: ToolFrameworkFact(**{**d, "methods": tuple(d["methods"]), "evidence": tuple(d["evidence"])})),
    ("tool_uses", _by_keywords(ToolUseFact)),
    ("model_receivers", lambda r: (r[0], r[1])),
    ("frameworks", None),
    ("cost_terms", _by_keywords(CostTermFact)),
    ("cost_nones", _by_keywords(SiteFact)),
    ("price_literals", _by_keywords(SiteFact)),
    ("model_calls", _by_keywords(ModelCallFact)),
    ("prompt_sites", PromptSiteFact.from_json),
    ("prompt_blocks", None),
    ("approved_names", None),
)
"""The list-valued project facts (``PROJECT_FACT_KEYS`` besides the module, its
imports, and scalars) and how one item of each is decoded from JSON (None: kept as
it is, a string)."""

_FILE_FACTS_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclass_fields(FileFacts) if f.default is not MISSING
}
"""The default of every field of ``FileFacts`` that has one; all are immutable values
(tuples, strings, numbers), so every decoded instance may share them."""

PROJECT_FACT_KEYS = frozenset({
    "module", "imports", "tools", "agents", "tool_refs", "tool_frameworks", "tool_uses", "model_receivers",
    "library_tools", "frameworks", "complete", "cost_terms", "cost_nones", "price_literals", "model_calls",
    "prompt_sites", "prompt_blocks", "approval_wiring", "approved_names",
})
"""The facts ``FileFacts.project_from_json`` reads."""

_PROJECT_FIELDS = tuple(name for name in FileFacts.__dataclass_fields__ if name in PROJECT_FACT_KEYS)
_ALWAYS_WRITTEN = frozenset({"module", "imports", "complete"})
"""The project facts ``FileFacts.project_from_json`` requires; the others may be absent."""
