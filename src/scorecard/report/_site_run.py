"""Run detail without a page per run: one run page (:data:`PAGE_RUN`) and, per candidate x case x
night, a shard holding its runs (:func:`run_shard`), which the page's script loads and renders.

A shard is a script calling ``scorecardRuns(KEY, DATA)`` (``file://`` lets a page load a script
of its folder where it refuses ``fetch``), its strings interned once per shard (the runs of a
case repeat their reasons). Per run: identity, source line, failure code, category, retryable
flag and message, the scorecard (every dimension, score, pass, reasons), each failing
dimension's reasons with their JSON Pointers, the audit findings not passed, and the
observation's fields those pointers name (or the nearest field on a pointer's path that
exists), each shortened to :data:`FIELD_LIMIT` characters. The observation itself is not copied:
the site would outgrow the night's inputs (``docs/report.md``); ``scorecard view`` shows it.

Every string is :func:`~scorecard.report._escape.clean` (redacted, unsafe characters replaced)
or bounded like the pages bound it; the script puts them in the page as text, never markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS, OBSERVATION_SCHEMA_ID
from scorecard.core import explain_failing, record_failure

from ._common import number_text
from ._escape import clean, shown
from ._site_assets import RUN_SCRIPT, data_script, page
from ._site_data import SiteData, SiteRun
from ._site_json import parse_pointer, resolve_pointer
from ._site_paths import PAGE_INDEX, PAGE_RUN, change_page_path, pair_page_path, slug

__all__ = ["FIELD_LIMIT", "REASON_LIMIT", "run_page", "run_shard"]

REASON_LIMIT = 2000
"""Characters of a reason or failure message shown (the rest is counted, not shown)."""
FIELD_LIMIT = 600
"""Characters of a pointed-at observation field shown (as compact JSON)."""
_SHORT = 300
_EVIDENCE = ("expected", "observed", "assertion", "schema")
"""The keys of a reason's evidence a shard carries, in order (the run page's labels)."""


def _bounded(text: object, limit: int) -> str:
    body = clean(str(text))
    if len(body) > limit:
        body = f"{body[:limit]}\n... ({len(body) - limit} more characters not shown)"
    return body


class _Strings:
    """A shard's string table: each distinct string stored once, referred to by position."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.positions: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        position = self.positions.get(text)
        if position is None:
            position = self.positions[text] = len(self.items)
            self.items.append(text)
        return position


def _field(document: Any, pointer: str) -> tuple[str, str]:
    """(the pointer of the deepest field on ``pointer``'s path, that field as shortened JSON)."""
    tokens, _ = resolve_pointer(document, pointer)
    node = document
    for token in tokens:
        node = node[int(token)] if isinstance(node, list) else node[token]
    found = "".join("/" + token.replace("~", "~0").replace("/", "~1") for token in tokens)
    text = json.dumps(node, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    return found, _bounded(text, FIELD_LIMIT)


#: A failure's ``retryable`` as a shard says it (-1: not said).
_RETRYABLE: dict[Any, int] = {True: 1, False: 0}


def _run_data(packed: SiteRun, strings: _Strings) -> list[Any]:
    run = packed.unpacked()  # read back once for its shard
    facts = run.facts
    scored = run.record
    # What explain_record says of the run, read from its record (the reasons redacted, the
    # failure as its record holds it), and its failing dimensions explained.
    card = scored.card
    redacted = scored.redacted_reasons
    failure = record_failure(scored.observation.get("failure"))
    failure_data = (
        [
            strings(shown(failure.get("code"))),
            strings(shown(failure.get("category"))),
            _RETRYABLE.get(failure.get("retryable"), -1),
            strings(_bounded(failure.get("message"), REASON_LIMIT)),
        ]
        if failure
        else None
    )
    # Per dimension (in DIMENSIONS order; null: not in the scorecard): [score, passed (1, 0,
    # -1: none)], and its reasons' strings only when it has some.
    dimensions: list[Any] = []
    for name in DIMENSIONS:
        dimension = card["dimensions"].get(name)
        if dimension is None:
            dimensions.append(None)
            continue
        passed = dimension.get("passed")
        given = [strings(_bounded(reason, _SHORT)) for reason in redacted.get(name, ())]
        dimensions.append(
            [number_text(dimension.get("score")), -1 if passed is None else int(bool(passed))]
            + ([given] if given else [])
        )
    pointers: list[str] = []
    failing: list[Any] = []
    for item in explain_failing(scored, run.catalog):
        reasons = []
        for reason in item["reasons"]:
            pointers.extend(reason["pointers"])
            # The reason's runner output contract (``contract.Evidence``): expected, observed,
            # the case assertion and the schema applied, each a string or null.
            evidence = [
                None if reason.get(name) is None else strings(_bounded(reason[name], _SHORT))
                for name in _EVIDENCE
            ]
            reasons.append(
                [
                    strings(_bounded(reason["reason"], REASON_LIMIT)),
                    [strings(shown(pointer)) for pointer in reason["pointers"]],
                    evidence,
                ]
            )
        failing.append([DIMENSIONS.index(item["dimension"]), number_text(item["score"]), reasons])
    audit = scored.audit_summary()
    order = {"failed": 0, "not_observed": 1}
    findings = []
    for finding in sorted(scored.findings_not_passed(), key=lambda f: order.get(f["status"], 2)):
        pointers.append(finding["pointer"])
        findings.append(
            [
                order.get(finding["status"], 2),
                strings(shown(finding["code"])),
                strings(shown(finding["pointer"])),
                strings(_bounded(finding.get("expected"), _SHORT)),
                strings(_bounded(finding.get("actual"), _SHORT)),
                strings(_bounded(finding.get("hint") or "", _SHORT)),
                strings(shown(finding.get("assertion") or "")),
            ]
        )
    fields = []
    for pointer in dict.fromkeys(pointers):  # each once, in the order first named
        if parse_pointer(pointer) is None:
            continue
        found, text = _field(scored.observation, pointer)
        fields.append([strings(shown(pointer)), strings(shown(found)), strings(text)])
    return [
        facts.repetition,
        strings(shown(facts.classification)),
        number_text(card["overall"].get("score")),
        strings(run.outcome),
        [strings(shown(scored.source)), scored.line],
        failure_data,
        dimensions,
        failing,
        [audit.failed, audit.not_observed, audit.passed, findings],
        fields,
    ]


def run_shard(site: SiteData, runs: Sequence[SiteRun]) -> bytes:
    """The shard of one candidate x case x night: its ``runs`` (by repetition), as the run
    page's script reads them."""
    facts = runs[0].facts
    strings = _Strings()
    data = [_run_data(run, strings) for run in sorted(runs, key=lambda r: r.facts.repetition)]
    earlier = site.bundles.index(facts.bundle) > 0
    pair = site.pair_names_into(facts.bundle)
    document = {
        "bundle": shown(facts.bundle),
        "candidate": shown(facts.candidate),
        "provider": shown(facts.provider),
        "model": shown(facts.model or "-"),
        "case": shown(facts.case),
        "slugs": [slug(facts.bundle), slug(facts.candidate), slug(facts.case)],
        "change": change_page_path(facts.bundle, facts.candidate, facts.case) if earlier else None,
        "pair": pair_page_path(*pair) if pair else None,
        "schema": OBSERVATION_SCHEMA_ID,
        "strings": strings.items,
        "runs": data,
    }
    key = f"{slug(facts.bundle)}/{slug(facts.candidate)}/{slug(facts.case)}"
    return data_script("scorecardRuns", key, document)


def run_page() -> bytes:
    """The run page: a frame the script fills from the shard its address names; without
    JavaScript, a note saying where the run's numbers are."""
    body = (
        '<h1 id="run-title">A run</h1>'
        '<div id="run" data-js hidden data-dimensions="'
        + ",".join(DIMENSIONS)
        + '" data-gate="'
        + ",".join(GATE_DIMENSIONS)
        + '"></div>'
        '<p class="note" id="run-missing" hidden>No such run in this site: the address names a '
        "run it does not hold.</p>"
        '<p class="note" data-no-js>A run is shown by this page\'s script (JavaScript is off): '
        "each candidate's and case's page lists its runs with their outcome and failing "
        "dimensions.</p>"
    )
    return page(
        PAGE_RUN, "A run", body, [("Overview", PAGE_INDEX), ("A run", None)], script=RUN_SCRIPT
    )
