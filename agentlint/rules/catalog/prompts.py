"""Metadata and documentation of AGL401 prompt-assembled-in-multiple-places (its check is
in ``prompt_assembly``)."""

from __future__ import annotations

from agentlint.rules.diagnostics import RuleMeta

_DOCS_401 = """\
## What it does
Finds the same prompt written or put together in more than one place of an
application, names every place, and says whether the copies are identical or how they
already differ. A place is a function or method (two definitions of one name, as in a
notebook's cells, are two places); all module-level code of a file is one place. It
reports:

- **copied prompt text**: the same long prompt — a string constant, a `\"\"\"...\"\"\"`
  in a function, `textwrap.dedent(...).replace(...)`, `PromptTemplate.from_template(...)`,
  `ChatPromptTemplate.from_messages(...)`, a system, user or developer message, the
  first argument of an agent class, a task's or an agent's `description=`, a
  `prompt_templates[...] += \"\"\"...\"\"\"`, a parameter's default — in several modules,
  functions or entry points, verbatim or drifted. Texts are compared
  with whitespace and placeholder names set aside (`{docs}` and `{docs_text}` are the
  same), and count as copies when most of one is in the other; a copy with a section
  added is still a copy, and so is the same template with other placeholder names;
- **a shared fragment**: a long run of identical text (an output format, a block of
  rules) pasted into several prompts;
- **the same template rendered in several places**: `TEMPLATE.format(...)`,
  `templates.tone.format(tone=bot.tone) if bot and bot.tone else ""`,
  `self.PROMPT.format(...)`, with the same literal arguments (other arguments may
  differ: the message shows how);
- **the same prompt assembled from the same blocks** (the application's prompt
  constants, prompt files it reads, named templates) with the same or added literal text;
- **the same message list rebuilt**: `[{"role": "system", "content": persona},
  {"role": "user", "content": templates.summary(...)}]` (or `SystemMessage(...)`,
  `("system", ...)` tuples) written out in several functions, every message's content
  coming from the same place, also when the system prompt arrives under different
  parameter names (`persona`, `role`, `self.system_text`): the callers are followed to
  the constant they all pass.

It does not report one composer called from many places, different agents' prompts,
a constant defined once and passed around as it is (`instructions=SYSTEM_PROMPT`), a
vendor's shared prefix (`RECOMMENDED_PROMPT_PREFIX`), or text that is not a prompt
(docstrings, logging and UI text, errors, tool and field descriptions, a user's task
such as `agent.run("...")`). Texts shorter than `min-prompt-words` words are not
prompts. Copies in test files are reported only as the `tests` setting says (skipped by
default), and a test's copy alone never makes a finding in the product's code.

The rule is project-wide: it sees every file of the application even when only some
files are checked (pre-commit). In a repository of independent samples each sample is
an application of its own, and each notebook is one as far as other notebooks go:
their copies of each other's prompts are not duplicates (see "Projects" in the
configuration docs, and `project-roots`).

## Why is this bad?
When the same prompt is put together in two or three places, a new rule lands in two of
them and is forgotten in the third; copies that already differ are where that has
happened. One pure composer — the prompt as a list of named blocks, concatenated in one
place — keeps every caller in step and gives telemetry one text to hash.

## Example
```python
# agents/chat.py
def chat(user):
    system = f"{SYSTEM_PROMPT}\\n\\nToday is {date.today()}."
    return client.chat.completions.create(messages=[{"role": "system", "content": system}, ...])

# agents/stream.py
def stream(user):
    return client.chat.completions.create(
        messages=[{"role": "system", "content": SYSTEM_PROMPT + f"\\n\\nToday is {date.today()}."}, ...],
        stream=True,
    )
```

## Use instead
```python
# prompts/compose.py
def compose_system(today: date) -> str:
    return "\\n\\n".join([SYSTEM_PROMPT, f"Today is {today}."])

# agents/chat.py and agents/stream.py
messages = [{"role": "system", "content": compose_system(date.today())}, ...]
```

## Fix safety
No fix.

## Configuration
- `prompt-composers` (list of strings, default `[]`): sanctioned composers. Places
  listed here are never reported (the other places still are, and point at them). An
  entry is a dotted name (`app.prompts.compose_system`; a class or module covers what
  is inside it), a bare function name, or `path/to/file.py:function`.
- `min-prompt-words` (integer, default `15`): texts with fewer words (placeholders not
  counted; a CJK character counts as half a word) are not prompts. Values below 8 count
  as 8.

```toml
[tool.agentlint.rules.AGL401]
prompt-composers = ["app.prompts.compose_system"]
min-prompt-words = 20
```

## Standard
Enforces the conversational-agent-with-phases standard, section "Deterministic turn
composer": the pain it removes is a prompt assembled in three places, which makes sure
that a new rule lands in two of them and is forgotten in the third. Its list of
anti-patterns names prompt assembly in more than one place, to be replaced by one pure
composer.
"""

PROMPT_ASSEMBLED_IN_MULTIPLE_PLACES = RuleMeta(
    code="AGL401",
    name="prompt-assembled-in-multiple-places",
    summary="The same prompt is written or assembled in more than one place of the application.",
    docs=_DOCS_401,
    settings={"prompt-composers": [], "min-prompt-words": 15},
    help="Keep the prompt in one composer function (list it in `prompt-composers`) and call it everywhere.",
)
