"""AGL101's message says whether two copies of a cost formula are identical and, when
they diverge, what differs: the unit, the handling of cached tokens, a missing term."""

from __future__ import annotations

from agentlint.api import check_source


def _messages(source: str) -> list[str]:
    return [d.message for d in check_source(source, select=["AGL101"]) if d.code == "AGL101"]


def test_units_are_normalised_before_comparing():
    found = _messages(
        "def a(usage, in_per_1k, out_per_1k):\n"
        "    return usage.prompt_tokens / 1000 * in_per_1k + usage.completion_tokens / 1000 * out_per_1k\n"
        "\n"
        "def b(usage, in_per_1m, out_per_1m):\n"
        "    return usage.prompt_tokens / 1_000_000 * in_per_1m + usage.completion_tokens / 1_000_000 * out_per_1m\n"
    )
    assert len(found) == 2
    assert all(m.endswith("the copies are identical") for m in found), found
    assert "is also computed in `b`" in found[0] and "is also computed in `a`" in found[1]


def test_a_wrong_divisor_is_a_difference_of_units():
    found = _messages(
        "def a(usage, in_per_1k, out_per_1k):\n"
        "    return usage.prompt_tokens / 1000 * in_per_1k + usage.completion_tokens / 1000 * out_per_1k\n"
        "\n"
        "def b(usage, in_per_1k, out_per_1k):\n"
        "    return usage.prompt_tokens / 1_000_000 * in_per_1k + usage.completion_tokens / 1_000_000 * out_per_1k\n"
    )
    assert len(found) == 2
    assert all("already diverge: different units" in m for m in found), found
    assert "a divisor that contradicts the price's unit" in found[0]


def test_cached_handling_and_missing_terms_are_named():
    found = _messages(
        "def careful(usage, price):\n"
        "    cached = usage.prompt_tokens_details.cached_tokens\n"
        "    return (usage.prompt_tokens - cached) * price.input + cached * price.cached"
        " + usage.completion_tokens * price.output\n"
        "\n"
        "def naive(usage, price):\n"
        "    return usage.prompt_tokens * price.input\n"
    )
    careful = next(m for m in found if "in `careful` is also" in m)
    naive = next(m for m in found if "in `naive` is also" in m)
    assert "no output term there" in careful and "cached tokens subtracted from the input here, not priced there" in careful
    assert "no output term here" in naive and "cached tokens not priced here" in naive


def test_one_price_for_all_tokens_against_prices_by_role():
    found = _messages(
        "def flat(usage, price_per_token):\n"
        "    return usage.total_tokens * price_per_token\n"
        "\n"
        "def by_role(usage, price):\n"
        "    return usage.prompt_tokens * price.input + usage.completion_tokens * price.output\n"
    )
    assert any("all tokens at one price here, by role there" in m for m in found), found
