"""The engine: read, analyse (parallel, cached), project phase, suppressions.

Per file: read the bytes, look the content up in the cache, otherwise analyse it:
facts from the ``ast`` tree, then one LibCST parse and one batched traversal for the
selected rules whose prefilter matches. The project phase then sees the facts of
every file.
"""

from __future__ import annotations

import ast
import os
import sys
import tokenize
import io
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping, Sequence

from agentlint.facts.agents import model as agents
from agentlint.facts import notebooks
from agentlint.rules import registry
from agentlint.engine.cache import Cache
from agentlint.engine.config import Settings
from agentlint.facts.module import extract_facts, module_name_for
from agentlint.knowledge.test_code import is_test_path
from agentlint.facts.source import parse_lowered
from agentlint.rules.builtin import INTERNAL_ERROR, SYNTAX_ERROR, UNREADABLE_FILE
from agentlint.engine.suppression import Suppression, apply_suppressions, find_suppressions
from agentlint.rules.diagnostics import Diagnostic, Edit, Fix, Position, RuleMeta, Span
from agentlint.facts.types import FileFacts

@dataclass(frozen=True)
class FileResult:
    """The outcome of analysing one file: what the cache stores and the pool returns."""

    path: str
    diagnostics: tuple[Diagnostic, ...]
    facts: FileFacts
    suppressions: tuple["Suppression", ...] = ()
    cells: tuple[tuple[int, int, int], ...] = ()
    """For a notebook: (first virtual line, cell, line count) per code cell checked
    (notebooks.CellMap). Diagnostics, facts and suppressions of a notebook are in
    virtual lines until ``engine.finalize`` maps them to cells."""

    def to_json(self) -> dict[str, Any]:
        data = {
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "facts": self.facts.to_json(),
            "suppressions": [asdict(s) for s in self.suppressions],
        }
        if self.cells:
            data["cells"] = [list(c) for c in self.cells]
        return data

    @staticmethod
    def from_json(data: dict[str, Any], path: str, *, with_facts: "bool | str" = True) -> "FileResult":
        """``with_facts``: True (every fact), "project" (what project rules read, see
        ``FileFacts.project_from_json``) or False (the module name only)."""
        facts = data["facts"]
        if with_facts == "project":
            decoded = FileFacts.project_from_json(facts)
        elif with_facts:
            decoded = FileFacts.from_json(facts)
        else:
            decoded = FileFacts(facts["module"], complete=False)
        return FileResult(
            path=path,
            diagnostics=tuple(Diagnostic.from_json(d, path) for d in data["diagnostics"]),
            facts=decoded,
            suppressions=tuple(
                Suppression(s["line"], s["column"], tuple(s["codes"])) for s in data["suppressions"]
            ),
            cells=tuple((c[0], c[1], c[2]) for c in data.get("cells", ())),
        )


_ENGINE_CODES = frozenset({SYNTAX_ERROR.code, UNREADABLE_FILE.code, INTERNAL_ERROR.code})
IN_PROCESS_MAX = 16
"""Runs with at most this many files to analyse stay in-process (start-up matters)."""


def _engine_diagnostic(meta: RuleMeta, path: str, message: str, line: int = 1, column: int = 1) -> Diagnostic:
    pos = Position(max(line, 1), max(column, 1))
    return Diagnostic(meta.code, meta.name, message, path, Span(pos, pos), help=meta.help)


def unreadable(path: str, reason: str) -> FileResult:
    return FileResult(
        path,
        (_engine_diagnostic(UNREADABLE_FILE, path, f"Cannot read `{path}`: {reason}"),),
        FileFacts(module=module_name_for(path), complete=False),
    )


def decode(content: bytes) -> str:
    """Decode as Python does (PEP 263 cookie, UTF-8 by default, BOM allowed)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(content).readline)
    return content.decode(encoding)


def analyze_content(path: str, content: bytes, settings: Settings) -> FileResult:
    """Analyse one file's bytes. Never raises: problems become diagnostics."""
    if notebooks.is_notebook(path):
        return _analyze_notebook(path, content, settings)
    return _analyze_python(path, content, settings)


def _analyze_notebook(path: str, content: bytes, settings: Settings) -> FileResult:
    """A notebook is analysed as the Python of its code cells (notebooks.py), in virtual
    lines; ``finalize`` maps the findings to cells. Outputs (images) do not count
    towards `max-file-size`, only the code does."""
    try:
        source = notebooks.read(content)
    except notebooks.NotebookError as exc:
        return unreadable(path, str(exc))
    return replace(_analyze_python(path, source.text.encode("utf-8"), settings), cells=source.cells.ranges)


def _analyze_python(path: str, content: bytes, settings: Settings) -> FileResult:
    if len(content) > settings.max_file_size:
        return unreadable(
            path,
            f"file is {len(content) / 1048576:.1f} MiB, above `max-file-size` "
            f"({settings.max_file_size / 1048576:.1f} MiB); raise it to check this file",
        )
    if b"\0" in content:
        return unreadable(path, "file contains NUL bytes (is it binary?)")
    try:
        text = decode(content)
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        detail = exc.reason if isinstance(exc, UnicodeDecodeError) else str(exc)
        where = f" at byte {exc.start}" if isinstance(exc, UnicodeDecodeError) else ""
        return unreadable(path, f"not valid UTF-8 or declared encoding ({detail}{where}); save it as UTF-8")

    diagnostics: list[Diagnostic] = []
    syntax_error: Diagnostic | None = None
    tree: ast.Module | None = None
    try:
        tree = parse_lowered(text, path)
        facts = extract_facts(path, tree, text)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 1
        col = getattr(exc, "offset", None) or 1
        msg = getattr(exc, "msg", None) or str(exc)
        syntax_error = _engine_diagnostic(SYNTAX_ERROR, path, f"Syntax error: {msg}", line, col)
        facts = FileFacts(module=module_name_for(path), complete=False)
    except (RecursionError, MemoryError):
        syntax_error = _engine_diagnostic(SYNTAX_ERROR, path, "Code is nested too deeply to analyse")
        facts = FileFacts(module=module_name_for(path), complete=False)
    except Exception as exc:  # a bug in the facts extractor
        diagnostics.append(
            _engine_diagnostic(INTERNAL_ERROR, path, f"Fact extraction crashed: {type(exc).__name__}: {exc}")
        )
        facts = FileFacts(module=module_name_for(path), complete=False)

    if tree is not None and facts.complete:
        facts, found = _agent_model(path, text, content, tree, facts, settings)
        diagnostics += found

    rules = [
        r
        for r in registry.per_file_rules()
        if r.meta.code in settings.enabled and (r.prefilter is None or r.prefilter.search(content))
    ]
    if syntax_error is not None and _too_deep(syntax_error):
        # LibCST's native parser can overflow its stack on such input: never feed it.
        diagnostics.append(syntax_error)
    elif rules or syntax_error is not None:
        # A syntax error by the running Python's `ast` may still be valid for LibCST
        # (newer syntax than this interpreter knows): LibCST has the last word.
        diagnostics += _run_rules(path, text, rules, settings, syntax_error, facts, tree)
    return FileResult(path, tuple(diagnostics), facts, find_suppressions(text))


@lru_cache(maxsize=8)
def _knowledge(entries: tuple) -> "agents.Knowledge":
    return agents.Knowledge.from_settings(dict(entries))


def facts_only(path: str, text: str, settings: Settings) -> FileFacts:
    """A file's facts without running any rule (the other files of a partial run):
    the same parse (newer syntax lowered) and the same agent model as a full analysis."""
    try:
        tree = parse_lowered(text, path)
        facts = extract_facts(path, tree, text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return FileFacts(module=module_name_for(path), complete=False)
    facts, _ = _agent_model(path, text, text.encode("utf-8", "surrogatepass"), tree, facts, settings, rules=False)
    return facts


def _agent_model(
    path: str, text: str, content: bytes, tree: ast.Module, facts: FileFacts, settings: Settings, rules: bool = True
) -> tuple[FileFacts, list[Diagnostic]]:
    """The file's agent model: its tools and agents go into the facts, and the model
    rules (AGL201, AGL202, AGL501) run on it. Cheap files (no tool or agent vocabulary)
    are skipped."""
    knowledge = _knowledge(settings.knowledge)
    frameworks = agents.frameworks_of(facts)
    if not agents.worth_modelling(content, knowledge):
        return (replace(facts, frameworks=frameworks) if frameworks else facts), []
    try:
        model = agents.build(tree, facts, text, knowledge)
        facts = replace(
            facts,
            tools=model.tool_facts(),
            agents=tuple(model.agents),
            tool_refs=tuple(model.tool_refs),
            frameworks=model.frameworks,
        )
    except RecursionError:
        return facts, []
    except Exception as exc:  # a bug in the agent model: say so, lose nothing else
        return facts, [_engine_diagnostic(INTERNAL_ERROR, path, f"Agent model crashed: {type(exc).__name__}: {exc}")]
    found: list[Diagnostic] = []
    if not rules:
        return facts, found
    from agentlint.rules.api import ModelContext

    for cls in registry.model_rules():
        if cls.meta.code not in settings.enabled:
            continue
        try:
            rule = cls(ModelContext(path, text, settings.rule_settings.get(cls.meta.code, {}), model))
            found += rule.check()
        except Exception as exc:
            found.append(_crash(path, cls.meta, exc))
    return facts, found


def _too_deep(diagnostic: Diagnostic) -> bool:
    message = diagnostic.message
    return "nested too deeply" in message or "too many nested" in message or "too complex" in message


def _run_rules(
    path: str,
    text: str,
    rule_classes: list,
    settings: Settings,
    syntax_error: Diagnostic | None,
    facts: FileFacts,
    tree: ast.Module | None,
) -> list[Diagnostic]:
    import libcst as cst

    from agentlint.rules.api import RuleContext
    from agentlint.rules.traversal import run_rules

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        if syntax_error is not None:
            return [syntax_error]
        return [
            _engine_diagnostic(
                SYNTAX_ERROR, path, f"Syntax error: {exc.message}", exc.raw_line, exc.raw_column + 1
            )
        ]
    except (RecursionError, MemoryError):
        return [_engine_diagnostic(SYNTAX_ERROR, path, "Code is nested too deeply to analyse")]
    except Exception as exc:
        return [_engine_diagnostic(SYNTAX_ERROR, path, f"Cannot parse: {type(exc).__name__}: {exc}")]

    imports = {i.local: i.qualified for i in facts.imports if i.local != "*"}
    ancestors: list = []
    out: list[Diagnostic] = []
    pending = []
    rules = []
    for cls in rule_classes:
        context = RuleContext(
            path=path,
            source=text,
            settings=settings.rule_settings.get(cls.meta.code, {}),
            ancestors=ancestors,
            imports=imports,
            reports=pending,
            facts=facts,
        )
        try:
            rules.append(cls(context))
        except Exception as exc:
            out.append(_crash(path, cls.meta, exc))

    def on_crash(rule, exc: BaseException) -> None:
        out.append(_crash(path, rule.meta, exc))

    try:
        run_rules(module, rules, ancestors, on_crash)
    except RecursionError:
        return out + [_engine_diagnostic(SYNTAX_ERROR, path, "Code is nested too deeply to analyse")]
    if pending:
        chains = [(*r.ancestors, r.node) for r in pending]
        for r in pending:
            if r.replacement is not None:
                chains += _edit_chains(r.replacement)
        positions = _positions(module, tree, chains)
        lines = text.splitlines()
        for report in pending:
            meta = report.rule.meta
            code_range = positions.get(report.node) if positions else None
            if code_range is None:
                span = Span.at_line(1)
            else:
                start = Position(code_range.start.line, code_range.start.column + 1)
                end = Position(code_range.end.line, code_range.end.column + 1)
                if end.line > start.line and isinstance(getattr(report.node, "body", None), cst.BaseSuite):
                    # A compound statement is reported on its header line, not its body.
                    header = lines[start.line - 1] if start.line <= len(lines) else ""
                    end = Position(start.line, len(header.rstrip()) + 1)
                span = Span(start, end)
            fix = report.fix
            if report.replacement is not None and positions:
                fix = _node_fix(module, report.replacement, code_range, positions, report.ancestors)
            out.append(
                Diagnostic(
                    code=meta.code,
                    name=meta.name,
                    message=report.message,
                    path=path,
                    span=span,
                    help=meta.help,
                    related=report.related,
                    fix=fix,
                )
            )
    return out


def _positions(module, tree: ast.Module | None, chains: list[tuple]) -> Mapping | None:
    """Source ranges for the reported nodes; each chain is (module, ..., node).

    LibCST's PositionProvider regenerates the whole module (about two parses' worth of
    work). Here only the innermost function or class statement holding a report is
    regenerated, starting at the line and indentation that the `ast` tree gives for
    it; the whole-module provider is the fallback.
    """
    from libcst.metadata import PositionProvider

    if tree is not None:
        try:
            return _anchored_positions(module, tree, chains)
        except Exception:
            pass  # fall through to the slow, general path
    from libcst.metadata import MetadataWrapper

    try:
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    except RecursionError:
        return None


def _anchor(module, tree: ast.Module, chain: tuple):
    """The deepest statement of ``chain`` reachable through module, class and function
    bodies only, with its first line (from `ast`) and the indentation around it."""
    import libcst as cst

    statements, nodes, indents = module.body, tree.body, []
    anchor = None
    block = None
    for child in chain[1:]:
        if child is block:
            continue  # the indented body of the def/class just entered
        index = 0
        for stmt in statements:
            if stmt is child:
                break
            index += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        else:
            break
        node = nodes[index]
        decorators = getattr(node, "decorator_list", None)
        first = min(d.lineno for d in decorators) if decorators else node.lineno
        anchor = (child, first, tuple(indents))
        if not isinstance(child, (cst.FunctionDef, cst.ClassDef)) or not isinstance(child.body, cst.IndentedBlock):
            break
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise ValueError("LibCST and ast disagree about a statement")
        block = child.body
        indents.append(block.indent if block.indent is not None else module.default_indent)
        statements, nodes = block.body, node.body
    if anchor is None:
        raise ValueError("no statement to anchor on")
    return anchor


def _anchored_positions(module, tree: ast.Module, chains: list[tuple]) -> dict:
    from libcst.metadata import PositionProvider
    from libcst.metadata.position_provider import PositionProvidingCodegenState

    computed: dict = {}
    for chain in chains:
        if chain[-1] in computed:
            continue
        statement, first_line, indents = _anchor(module, tree, chain)
        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
        )
        state.indent_tokens = list(indents)
        state.line = first_line - len(statement.leading_lines)
        statement._codegen(state)
        computed.update(provider._computed)
    return computed


def _edit_chains(node_fix) -> list[tuple]:
    chains = []
    for edit in node_fix.edits:
        chains.append((*edit.ancestors, edit.node))
        for located in (edit.start_after, edit.end_before):
            if located is not None:
                chains.append((*located[1], located[0]))
    return chains


def _render(module, content, ancestors=()) -> str:
    """The source of a replacement node, indented like the place it goes to (a call
    spread over several lines inside a function keeps its lines' indentation)."""
    if isinstance(content, str):
        return content
    import libcst as cst
    from libcst._nodes.internal import CodegenState

    if getattr(content, "comma", None) is not None and not isinstance(content.comma, cst.MaybeSentinel):
        # The source range of an argument, element or import alias stops before its
        # comma; so must the text that replaces it.
        content = content.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    # The blocks and `match` statements around it each add one level (LibCST's
    # `increase_indent` is called by exactly these two).
    state.indent_tokens = [
        a.indent if a.indent is not None else module.default_indent
        for a in ancestors
        if isinstance(a, (cst.IndentedBlock, cst.Match))
    ]
    content._codegen(state)
    return "".join(state.tokens)


def _node_fix(module, node_fix, code_range, positions, ancestors=()) -> Fix | None:
    """Text edits over the nodes' exact source ranges (columns 1-based); None when a
    position is missing (the fix is then not offered)."""

    def start(pos) -> Position:
        return Position(pos.start.line, pos.start.column + 1)

    def end(pos) -> Position:
        return Position(pos.end.line, pos.end.column + 1)

    edits: list[Edit] = []
    if node_fix.replacement is not None:
        if code_range is None:
            return None
        edits.append(Edit(Span(start(code_range), end(code_range)), _render(module, node_fix.replacement, ancestors)))
    for edit in node_fix.edits:
        where = positions.get(edit.node)
        if where is None:
            return None
        first, last = start(where), end(where)
        if edit.start_after is not None:
            other = positions.get(edit.start_after[0])
            if other is None:
                return None
            first = end(other)
        if edit.end_before is not None:
            other = positions.get(edit.end_before[0])
            if other is None:
                return None
            last = start(other)
        edits.append(Edit(Span(first, last), _render(module, edit.replacement, edit.ancestors)))
    if not edits:
        return None
    edits.sort(key=lambda e: (e.span.start, e.span.end))
    for before, after in zip(edits, edits[1:]):
        if after.span.start < before.span.end:
            return None  # overlapping edits: not a fix that can be applied
    return Fix(node_fix.message, tuple(edits), node_fix.safe)


def _crash(path: str, meta: RuleMeta, exc: BaseException) -> Diagnostic:
    return _engine_diagnostic(
        INTERNAL_ERROR,
        path,
        f"Rule {meta.code} ({meta.name}) crashed on this file: {type(exc).__name__}: {exc}",
    )


# -- running many files ------------------------------------------------------------


@dataclass
class RunResult:
    diagnostics: list[Diagnostic]
    results: dict[str, FileResult] = field(default_factory=dict)
    files_checked: int = 0
    cache_hits: int = 0
    context: Mapping[str, FileFacts] | None = None
    """Facts of project files that were not checked (a partial run; see projects.py)."""


def _read(path: str) -> bytes | str:
    """The file's bytes, or the reason it cannot be read."""
    try:
        if os.path.isdir(path):
            return "is a directory"
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        return exc.strerror or str(exc)


_WORKER_SETTINGS: Settings | None = None


_WORKER_CACHE: "Cache | None" = None
_WORKER_KEEP: "bool | str" = True
_PROJECT_FACT_KEYS = frozenset({
    "module", "imports", "tools", "agents", "tool_refs", "frameworks", "complete",
    "cost_terms", "cost_nones", "price_literals", "prompt_sites", "prompt_blocks",
})
"""The facts ``FileFacts.project_from_json`` reads."""


def _init_worker(settings: Settings, use_cache: bool = False, keep_facts: "bool | str" = True) -> None:
    global _WORKER_SETTINGS, _WORKER_CACHE, _WORKER_KEEP
    _WORKER_SETTINGS = settings
    _WORKER_CACHE = Cache(settings.cache_dir, settings.fingerprint()) if use_cache else None
    _WORKER_KEEP = keep_facts


def _worker(path: str) -> tuple[str, dict]:
    """Analyse one file in a pool worker. The worker reads the file itself and writes
    its cache entry itself, and sends back only the facts the run keeps: the parent
    never holds the sources, nor every file's full facts, of a whole run."""
    assert _WORKER_SETTINGS is not None
    content = _read(path)
    if isinstance(content, str):
        return "", unreadable(path, content).to_json()
    key = Cache.key(path, content)
    if _WORKER_KEEP == "facts-only":
        return key, {"facts": facts_only_json(path, content, key, _WORKER_SETTINGS, _WORKER_CACHE)}
    data = analyze_content(path, content, _WORKER_SETTINGS).to_json()
    if _WORKER_CACHE is not None and not any(d["code"] == INTERNAL_ERROR.code for d in data["diagnostics"]):
        _WORKER_CACHE.put(key, data)
    if _WORKER_KEEP is not True:
        facts = data["facts"]
        keep = _PROJECT_FACT_KEYS if _WORKER_KEEP == "project" else ("module", "complete")
        data["facts"] = {k: facts[k] for k in keep if k in facts}
    return key, data


def run(
    files: list[str],
    settings: Settings,
    *,
    jobs: int | None = None,
    use_cache: bool = True,
    stdin: tuple[str, bytes] | None = None,
    progress: Callable[[int, int], None] | None = None,
    keep_facts: bool | None = True,
    paths: Sequence[str] | None = None,
) -> RunResult:
    """Check ``files``. With ``keep_facts=None`` the results carry facts only when a
    selected project rule needs them (`check` does this: facts are most of a run's
    memory); callers that read facts (explain) keep the default.

    ``paths`` are the paths given on the command line (`files` were discovered from
    them). When they do not cover a project of the files (pre-commit passes changed
    files), the project rules also see the project's other files, through their
    cached facts (see projects.py), and report only in ``files``."""
    if keep_facts is None:
        # `check`: only the facts the project rules read, and only when one is selected
        keep_facts = "project" if _project_phase_wanted(settings) else False
    cache = Cache(settings.cache_dir, settings.fingerprint()) if use_cache else None
    results: dict[str, FileResult] = {}
    todo: list[str] = []
    hits = 0
    for path in files:
        content = _read(path)
        if isinstance(content, str):
            results[path] = unreadable(path, content)
            continue
        if cache is not None:
            cached = cache.get(Cache.key(path, content))
            if cached is not None:
                try:
                    results[path] = FileResult.from_json(cached, path, with_facts=keep_facts)
                    hits += 1
                    continue
                except (KeyError, TypeError, ValueError):
                    pass  # an entry from a broken write or an old layout: rebuild it
        todo.append(path)
    if stdin is not None:
        results[stdin[0]] = analyze_content(stdin[0], stdin[1], settings)

    done = len(results)
    total = len(files) + (1 if stdin else 0)
    for path, _key, data in _analyze_all(todo, settings, jobs, cache is not None, keep_facts):
        results[path] = FileResult.from_json(data, path, with_facts=keep_facts)
        done += 1
        if progress is not None:
            progress(done, total)

    context = _context_facts(results, paths, settings, cache) if keep_facts and paths is not None else None
    diagnostics = finalize(results, settings, registry.all_rules(), context=context)
    return RunResult(diagnostics, results, len(results), hits, context)


def facts_json(
    files: list[str], settings: Settings, *, jobs: int | None = None, use_cache: bool = True
) -> Iterable[tuple[str, dict[str, Any]]]:
    """(path, facts in their JSON form, as cached) for each of ``files``: what
    `explain` indexes, one file at a time. The facts come from `check`'s full result
    when the cache has one, else from a facts-only entry (``projects.facts_only_key``);
    a miss is read with ``ast`` only, no rule and no LibCST parse (a tenth of the cost
    of a full analysis), in the process pool, and stored facts-only. No project phase
    runs and no result is decoded."""
    cache = Cache(settings.cache_dir, settings.fingerprint()) if use_cache else None
    todo: list[str] = []
    for path in files:
        content = _read(path)
        if isinstance(content, str):
            yield path, unreadable(path, content).facts.to_json()
            continue
        facts = cached_facts(cache, Cache.key(path, content)) if cache is not None else None
        if facts is not None:
            yield path, facts
        else:
            todo.append(path)
    for path, _key, data in _analyze_all(todo, settings, jobs, cache is not None, "facts-only"):
        yield path, data["facts"]


def cached_facts(cache: Cache, key: str) -> dict[str, Any] | None:
    """The facts (JSON) cached for content ``key``: `check`'s full result, else a
    facts-only entry (``projects.facts_only_key``)."""
    from agentlint.engine.boundaries import facts_only_key

    for entry_key in (key, facts_only_key(key)):
        entry = cache.get(entry_key)
        facts = entry.get("facts") if isinstance(entry, dict) else None
        if isinstance(facts, dict) and "calls" in facts:
            return facts
    return None


def facts_only_json(path: str, content: bytes, key: str, settings: Settings, cache: "Cache | None") -> dict[str, Any]:
    """A file's facts without its rules (``facts_only``), stored as a facts-only cache
    entry; a file that cannot be read as code gets empty, incomplete facts."""
    from agentlint.engine.boundaries import facts_only_key

    facts = None
    if len(content) <= settings.max_file_size and b"\0" not in content:
        try:
            text = notebooks.read(content).text if notebooks.is_notebook(path) else decode(content)
            facts = facts_only(path, text, settings)
        except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError, notebooks.NotebookError):
            facts = None
    data = (facts or FileFacts(module=module_name_for(path), complete=False)).to_json()
    if cache is not None:
        cache.put(facts_only_key(key), {"facts": data})
    return data


def _context_facts(
    results: Mapping[str, FileResult], paths: Sequence[str], settings: Settings, cache: Cache | None
) -> dict[str, FileFacts] | None:
    """Facts of the files of the checked files' projects that were not checked."""
    if not _project_phase_wanted(settings):
        return None
    from agentlint.engine import boundaries as projects

    project_map = projects.ProjectMap(settings)
    others = projects.context_files([p for p in results if p != "-"], paths, settings, project_map)
    if not others:
        return None
    return projects.load_context_facts(others, settings, cache, _read)


def _analyze_all(
    todo: list[str], settings: Settings, jobs: int | None, use_cache: bool = False, keep_facts: "bool | str" = True
):
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(todo) <= IN_PROCESS_MAX:
        _init_worker(settings, use_cache, keep_facts)
        for path in todo:
            key, data = _worker(path)
            yield path, key, data
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    method = "fork" if sys.platform.startswith("linux") else None
    context = multiprocessing.get_context(method)
    chunk = max(1, min(32, len(todo) // (jobs * 8) or 1))
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_init_worker, initargs=(settings, use_cache, keep_facts)
    ) as pool:
        # Consume results as they complete (in-order consumption would buffer every
        # result that finished behind a slow file, facts and all), and keep only a few
        # chunks in flight: a finished future holds its whole result (every file's
        # facts) for as long as anything refers to it.
        remaining = iter(chunks)
        pending: set = set()
        while True:
            while len(pending) < jobs * 4:
                next_chunk = next(remaining, None)
                if next_chunk is None:
                    break
                pending.add(pool.submit(_worker_chunk, next_chunk))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield from future.result()
            del done, future


def _worker_chunk(paths: list[str]) -> list[tuple[str, str, dict]]:
    return [(path, *_worker(path)) for path in paths]


def _project_phase_wanted(settings: Settings) -> bool:
    """A project rule is selected, or a model rule (tools declared in one module and
    passed as tools in another are found in the project phase)."""
    return any(r.meta.code in settings.enabled for r in (*registry.project_rules(), *registry.model_rules()))


def project_phase(facts: Mapping[str, FileFacts], settings: Settings) -> list[Diagnostic]:
    """The project rules, run once per project (projects.py: a monorepo of independent
    applications is several projects, which never see each other's facts)."""
    from agentlint.rules.api import ProjectContext

    selected = [cls for cls in registry.project_rules() if cls.meta.code in settings.enabled]
    if not facts:
        return []
    from agentlint.engine import cross_module_tools as external_tools

    # tools declared in one module and passed as tools in another, per project
    out, groups = external_tools.declare_in_projects(facts, settings)
    for cls in selected:
        for group in groups:
            try:
                out += cls(ProjectContext(group, settings.rule_settings.get(cls.meta.code, {}))).check()
            except Exception as exc:
                out.append(_crash("<project>", cls.meta, exc))
    return out


def finalize(
    results: Mapping[str, FileResult],
    settings: Settings,
    rules: Mapping[str, RuleMeta],
    *,
    project: bool = True,
    context: Mapping[str, FileFacts] | None = None,
) -> list[Diagnostic]:
    """Project phase (unless ``project`` is false), then per-file-ignores and
    suppressions, sorted. ``context`` holds the facts of project files that were not
    checked (a partial run): the project rules see them, but report only in
    ``results``."""
    by_path: dict[str, list[Diagnostic]] = {p: list(r.diagnostics) for p, r in results.items()}
    if project:
        facts = {p: r.facts for p, r in results.items()}
        if context:
            facts = {**context, **facts}
        for d in project_phase(facts, settings):
            if d.path in by_path or d.path == "<project>":
                by_path.setdefault(d.path, []).append(d)
    out: list[Diagnostic] = []
    for path, diagnostics in by_path.items():
        ignored = settings.ignored_for(_relative(path, settings.root)) - _ENGINE_CODES
        enabled = settings.enabled - ignored
        diagnostics = [d for d in diagnostics if d.code in enabled]
        result = results.get(path)
        kept = apply_suppressions(
            diagnostics,
            result.suppressions if result else (),
            path=path,
            enabled=enabled,
            rules=rules,
        )
        if kept and is_test_path(_relative(path, settings.root)):
            kept = _in_test_code(kept, settings)
        out += kept
    out = notebooks.to_cells(out, {p: r.cells for p, r in results.items() if r.cells})
    out.sort(key=Diagnostic.sort_key)
    return out


def _in_test_code(diagnostics: list[Diagnostic], settings: Settings) -> list[Diagnostic]:
    """The `tests` setting: findings in test code are reported, turned into notes, or
    skipped, per code or family. Engine diagnostics are always reported."""
    out = []
    for d in diagnostics:
        mode = "report" if d.code in _ENGINE_CODES else settings.test_mode(d.code)
        if mode == "skip":
            continue
        out.append(replace(d, severity="note") if mode == "note" else d)
    return out


def _relative(path: str, root: str) -> str:
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, root)
    return (os.path.basename(absolute) if rel.startswith("..") else rel).replace(os.sep, "/")


def has_internal_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.code == INTERNAL_ERROR.code for d in diagnostics)


def file_diagnostics(path: str, content: bytes, settings: Settings) -> list[Diagnostic]:
    """The per-file findings for ``content`` as the file ``path``, per-file-ignores and
    suppressions applied (no project phase, no cache): what each `--fix` round reads."""
    result = analyze_content(path, content, settings)
    return finalize({path: result}, settings, registry.all_rules(), project=False)
