"""`explain` output: a readable tree (text), JSON, Graphviz dot and Mermaid."""

from __future__ import annotations

import json
from typing import Any

from agentlint.explain.answer import Answer, to_json
from agentlint.explain.kinds import GROUPS

FORMATS = ("text", "json", "dot", "mermaid")


def render(answer: Answer, fmt: str) -> str:
    data = to_json(answer)
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    if fmt == "dot":
        return _dot(data)
    if fmt == "mermaid":
        return _mermaid(data)
    return _text(answer, data)


_STRUCTURAL = ("constructs", "member", "defines", "inherits")
"""Links whose line is the user's own definition line: shown without it."""


def _how(edge: dict[str, Any]) -> str:
    if edge["kind"] in _STRUCTURAL:
        return edge["kind"]
    return f"{edge['kind']} {', '.join(map(str, edge['lines']))}"


def _where(node: dict[str, Any]) -> str:
    if not node.get("path"):
        return ""
    cell = f"cell {node['cell']}:" if node.get("cell") is not None else ""  # a notebook
    return f"{node['path']}:{cell}{node['line']}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _text(answer: Answer, data: dict[str, Any]) -> str:
    out: list[str] = []
    nodes: dict[str, dict[str, Any]] = {}
    for node in (*data["definitions"], *data["readers"], *data["callers"]):
        nodes[node["id"]] = node
    mode = data["mode"]
    if mode == "symbol":
        for target in data["definitions"]:
            out.append(f"{target['qualified']}  ({target['kind']})")
            out.append(f"  defined at {_where(target)}")
        for value in data["values"]:
            shown = value if len(value) <= 60 else value[:57] + "..."
            out.append(f"  value: {json.dumps(shown)}")
    elif mode == "string":
        out.append(f"string {json.dumps(answer.query.value)}")
    else:
        out.append(f"file {answer.query.value}")
        for path in data["files"]:
            out.append(f"  found at {path}")
        if not data["files"]:
            out.append("  (no such file in the project)")
    for note in data["notes"]:
        out.append(f"  note: {note}")

    readers = data["readers"]
    if data["definitions"] or mode != "symbol" or readers:
        verb = {"symbol": "Read directly by", "string": "Used as a literal in", "file": "Named in"}[mode]
        if mode == "symbol" and any(d["kind"] not in ("variable", "attribute") for d in data["definitions"]):
            verb = "Used directly by"  # a function is called, a class constructed
        if mode == "symbol" and not data["definitions"]:
            verb = "Used as a literal in"
        out.append("")
        out.append(f"{verb} ({len(readers)}):" if readers else f"{verb}: nothing found in the graph")
        width = max((len(r["qualified"]) for r in readers), default=0)
        for reader in readers:
            via = "; ".join(
                v["kind"] if v["kind"] in _STRUCTURAL else
                f"{v['kind']} at line{'s' if len(v['lines']) > 1 else ''} {', '.join(map(str, v['lines']))}"
                for v in reader["via"]
            )
            out.append(f"  {reader['qualified'].ljust(width)}  {_where(reader)}  ({via})")

    if data["callers"] or readers:
        out.append("")
        limit = f", up to depth {data['depth']}" if data["depth"] else ""
        out.append(f"Callers up to the roots ({_plural(len(readers) + len(data['callers']), 'place')}{limit}):")
        out += _tree(answer, data, nodes)

    if data["stopped"]:
        out.append("")
        out.append(
            "Where the search may have stopped early (calls of the same name on a receiver whose type is "
            f"not known; they may reach it too) ({len(data['stopped'])}):"
        )
        width = max(len(s["qualified"]) for s in data["stopped"])
        for stop in data["stopped"]:
            more = f", {stop['calls'] - len(stop['examples'])} more" if stop["calls"] > len(stop["examples"]) else ""
            out.append(
                f"  {stop['qualified'].ljust(width)}  {_plural(stop['calls'], 'call')} of `.{stop['name']}(...)`: "
                f"{', '.join(stop['examples'])}{more}"
            )

    if readers or data["callers"]:
        out.append("")
        out.append("By kind:")
        for group in (*GROUPS, "other"):
            ids = data["groups"][group]
            if group == "other":
                out.append(f"  other ({len(ids)}): functions, methods, module code in between")
                continue
            out.append(f"  {group} ({len(ids)}):" if ids else f"  {group}: none")
            width = max((len(nodes[i]["qualified"]) for i in ids), default=0)
            for node_id in ids:
                node = nodes[node_id]
                out.append(f"    {node['qualified'].ljust(width)}  {_where(node)}  {'; '.join(node['why'])}")

    if data["text_matches"]:
        out.append("")
        out.append(f"Text matches in non-Python files (grep, not from the graph) ({len(data['text_matches'])}):")
        for m in data["text_matches"]:
            out.append(f"  {_where(m)}: {m['text']}")
    if data["python_mentions"]:
        out.append("")
        left = data["python_mentions_left_out"]
        extra = f", {left} more not shown" if left else ""
        out.append(
            f"Python lines that mention it but are not linked in the graph (grep) ({len(data['python_mentions'])}{extra}):"
        )
        for m in data["python_mentions"]:
            out.append(f"  {_where(m)}: {m['text']}")
    if not data["found"]:
        out.append("")
        out.append("Nothing found: no definition, no use, no text match.")
    return "\n".join(out) + "\n"


def _tree(answer: Answer, data: dict[str, Any], nodes: dict[str, dict[str, Any]]) -> list[str]:
    """Each node once, under the place it was first reached from (breadth-first)."""
    depth_of: dict[str, int] = {}
    for node in (*data["definitions"], *data["readers"], *data["callers"]):
        depth_of[node["id"]] = node.get("depth") or 0
    roots = [d["id"] for d in data["definitions"]] or [
        e["to"] for e in data["edges"] if depth_of.get(e["from"]) == 1 and e["to"] not in depth_of
    ][:1]
    for root in roots:
        depth_of.setdefault(root, 0)
    edge_of: dict[tuple[str, str], dict[str, Any]] = {(e["from"], e["to"]): e for e in data["edges"]}
    users: dict[str, list[str]] = {}
    for source, target in edge_of:
        users.setdefault(target, []).append(source)
    parent: dict[str, str] = {}
    for (source, target), _edge in sorted(edge_of.items()):
        if source in parent or source in roots:
            continue
        if depth_of.get(source, -1) == depth_of.get(target, -2) + 1:
            parent[source] = target
    children: dict[str, list[str]] = {}
    for child, up in parent.items():
        children.setdefault(up, []).append(child)

    def key(node_id: str) -> tuple:
        node = nodes.get(node_id, {})
        return (node.get("path") or "", node.get("line") or 0, node_id)

    lines: list[str] = []

    def show(node_id: str, prefix: str, last: bool, top: bool) -> None:
        node = nodes.get(node_id)
        if node is None:
            text = node_id
        else:
            tags = f"  [{'; '.join(node['why'])}]" if node.get("why") else ""
            edge = edge_of.get((node_id, parent.get(node_id, "")))
            how = f"  ({_how(edge)})" if edge and not top else ""
            text = f"{node['qualified']}  {_where(node)}{how}{tags}"
            # Each place is drawn once: say when its users are drawn under another place.
            elsewhere = sorted(u for u in users.get(node_id, ()) if parent.get(u) != node_id and u in nodes)
            if elsewhere:
                names = ", ".join(nodes[u]["qualified"] for u in elsewhere[:2])
                more = f" and {len(elsewhere) - 2} more" if len(elsewhere) > 2 else ""
                text += f"  (also used by {names}{more}, shown elsewhere)"
        if top:
            lines.append(f"  {text}")
            inner = "  "
        else:
            lines.append(f"{prefix}{'└── ' if last else '├── '}{text}")
            inner = prefix + ("    " if last else "│   ")
        kids = sorted(children.get(node_id, []), key=key)
        for i, kid in enumerate(kids):
            show(kid, inner, i == len(kids) - 1, False)

    for root in roots:
        show(root, "  ", True, True)
    return lines


def _escape_dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


_COLOURS = {"tools and agents": "#ffe0b2", "entry points": "#c8e6c9", "tests": "#e1f5fe", "other": "#ffffff"}


def _all_nodes(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    nodes: dict[str, dict[str, Any]] = {}
    for node in (*data["definitions"], *data["readers"], *data["callers"]):
        nodes[node["id"]] = node
    for edge in data["edges"]:
        for end in (edge["from"], edge["to"]):
            nodes.setdefault(end, {"id": end, "qualified": end, "path": None, "line": None, "groups": [], "kind": data["mode"]})
    return nodes


def _dot(data: dict[str, Any]) -> str:
    nodes = _all_nodes(data)
    targets = {d["id"] for d in data["definitions"]} | {e["to"] for e in data["edges"] if e["to"] not in {d["id"] for d in data["readers"] + data["callers"]}}
    out = ['digraph explain {', '  rankdir=LR;', '  node [shape=box, style="rounded,filled", fontname="Helvetica", fillcolor="#ffffff"];']
    for node_id, node in nodes.items():
        label = _escape_dot(node["qualified"]) + (f"\\n{_escape_dot(_where(node))}" if node.get("path") else "")
        colour = "#ffcdd2" if node_id in targets else _COLOURS[(node.get("groups") or ["other"])[0]]
        out.append(f'  "{_escape_dot(node_id)}" [label="{label}", fillcolor="{colour}"];')
    for edge in data["edges"]:
        out.append(f'  "{_escape_dot(edge["from"])}" -> "{_escape_dot(edge["to"])}" [label="{edge["kind"]}"];')
    for match in data["text_matches"]:
        mid = f"text:{match['path']}:{match['line']}"
        out.append(f'  "{_escape_dot(mid)}" [label="{_escape_dot(match["path"])}:{match["line"]}\\n(text match)", shape=note, style=dashed];')
    out.append("}")
    return "\n".join(out) + "\n"


def _escape_mermaid(text: str) -> str:
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def _mermaid(data: dict[str, Any]) -> str:
    nodes = _all_nodes(data)
    ids = {node_id: f"n{i}" for i, node_id in enumerate(nodes)}
    targets = {d["id"] for d in data["definitions"]} | {e["to"] for e in data["edges"] if e["to"] not in {d["id"] for d in data["readers"] + data["callers"]}}
    out = ["flowchart LR"]
    for node_id, node in nodes.items():
        where = f"<br/>{_escape_mermaid(_where(node))}" if node.get("path") else ""
        out.append(f'  {ids[node_id]}["{_escape_mermaid(node["qualified"])}{where}"]')
    for edge in data["edges"]:
        out.append(f"  {ids[edge['from']]} -->|{edge['kind']}| {ids[edge['to']]}")
    for i, match in enumerate(data["text_matches"]):
        out.append(f'  t{i}[/"{_escape_mermaid(match["path"])}:{match["line"]} (text match)"/]')
    classes = {"target": [], "tools and agents": [], "entry points": [], "tests": []}
    for node_id, node in nodes.items():
        if node_id in targets:
            classes["target"].append(ids[node_id])
        else:
            group = (node.get("groups") or ["other"])[0]
            if group in classes:
                classes[group].append(ids[node_id])
    styles = {"target": "fill:#ffcdd2", "tools and agents": "fill:#ffe0b2", "entry points": "fill:#c8e6c9", "tests": "fill:#e1f5fe"}
    for name, members in classes.items():
        if members:
            css = name.replace(" ", "_")
            out.append(f"  classDef {css} {styles[name]}")
            out.append(f"  class {','.join(members)} {css}")
    return "\n".join(out) + "\n"
