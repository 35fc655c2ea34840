"""A run's page: identity, failure metadata, scorecard, failing reasons linked to their JSON
Pointers, audit findings, and the observation with those fields highlighted."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from scorecard.contract import DIMENSIONS, GATE_DIMENSIONS, OBSERVATION_SCHEMA_ID

from ._common import number_text
from ._site_assets import page
from ._site_data import SiteData, SiteRun
from ._site_json import render_json
from ._site_paths import (
    PAGE_INDEX,
    anchor_id,
    candidate_page_path,
    case_page_path,
    change_page_path,
    link,
)
from ._site_pieces import esc, flag_cell, html_table, status_cell

__all__ = ["evidence_list", "run_page"]

REASON_LIMIT = 2000
"""Characters of a reason or failure message shown (the rest is counted, not shown)."""


def pointer_links(pointers: Sequence[str]) -> str:
    return ", ".join(
        f'<a class="ptr" href="#{anchor_id(pointer)}">{esc(pointer)}</a>' for pointer in pointers
    )


def evidence_list(reason: Mapping[str, Any]) -> str:
    """A reason's runner output contract (``contract.Evidence`` keys, already written) as a
    small definition list: expected, observed, the case assertion, the schema applied."""
    shown = [
        ("expected", reason.get("expected")),
        ("observed", reason.get("observed")),
        ("case assertion", reason.get("assertion")),
        ("schema", reason.get("schema")),
    ]
    items = "".join(
        f"<dt>{name}</dt><dd><code>{esc(value, 300)}</code></dd>"
        for name, value in shown
        if value is not None
    )
    return f'<dl class="evidence">{items}</dl>' if items else ""


def run_page(site: SiteData, run: SiteRun) -> bytes:
    path = run.path
    facts = run.facts
    explanation = run.explanation
    record = run.record.record_json()
    card = run.record.scorecard_json()
    pointers: list[str] = []
    for item in explanation["failingDimensions"]:
        for reason in item["reasons"]:
            pointers.extend(reason["pointers"])
    findings = explanation["audit"]["findings"]
    pointers.extend(f["pointer"] for f in findings if f["status"] != "passed")
    overall = card["overall"]
    source = explanation["source"]
    where = str(source["file"]) + (f":{source['line']}" if source["line"] is not None else "")
    facts_list = [
        ("bundle", facts.bundle),
        ("candidate", facts.candidate),
        ("provider", facts.provider),
        ("model", facts.model or "-"),
        ("case", facts.case),
        ("run", str(facts.repetition)),
        ("classification", facts.classification),
        ("overall", number_text(overall.get("score"))),
        ("outcome", run.outcome),
        ("source", where),
    ]
    facts_html = (
        '<dl class="facts">'
        + "".join(f"<dt>{esc(name)}</dt><dd>{esc(value)}</dd>" for name, value in facts_list)
        + "</dl>"
    )
    failure = record.get("failure")
    if failure:
        failure_html = '<h2 id="failure">Failure</h2>' + html_table(
            ["code", "category", "retryable", "message"],
            [
                [
                    f"<code>{esc(failure.get('code'))}</code>",
                    esc(failure.get("category")),
                    {True: "yes", False: "no"}.get(failure.get("retryable"), "-"),
                    f'<div class="reason">{esc(failure.get("message"), REASON_LIMIT)}</div>',
                ]
            ],
            css="failure",
        )
    else:
        failure_html = ""
    dimension_rows = []
    for name in DIMENSIONS:
        dimension = card["dimensions"].get(name)
        if dimension is None:
            continue
        reasons = dimension.get("reasons", [])
        dimension_rows.append(
            [
                esc(name),
                esc(number_text(dimension.get("score"))),
                flag_cell(dimension.get("passed"), "passed", "failed"),
                "gate" if name in GATE_DIMENSIONS else "",
                "; ".join(esc(reason, 300) for reason in reasons) or "-",
            ]
        )
    scorecard_html = html_table(
        ["dimension", "score", "passed", "gate", "reasons"],
        dimension_rows,
        numeric=[1],
        css="scorecard",
    )
    reason_parts = []
    for item in explanation["failingDimensions"]:
        entries = "".join(
            f'<li><span class="reason">{esc(reason["reason"], REASON_LIMIT)}</span>'
            + (
                f' <span class="note">at</span> {pointer_links(reason["pointers"])}'
                if reason["pointers"]
                else ""
            )
            + evidence_list(reason)
            + "</li>"
            for reason in item["reasons"]
        )
        gate = " (gate)" if item["gate"] else ""
        reason_parts.append(
            f'<h3 id="dim-{esc(item["dimension"])}">{esc(item["dimension"])}{gate}: '
            f'{esc(number_text(item["score"]))}</h3><ul class="reasons">{entries or "<li>no reason recorded</li>"}</ul>'
        )
    if reason_parts:
        reasons_html = "".join(reason_parts)
    elif facts.scoreable:
        reasons_html = '<p class="note">No failing dimension.</p>'
    else:
        reasons_html = '<p class="note">Not scored: the execution was not scoreable.</p>'
    audit = explanation["audit"]
    finding_rows = [
        [
            status_cell({"failed": "fail", "not_observed": "warn"}.get(f["status"], "pass")),
            f"<code>{esc(f['code'])}</code>",
            pointer_links([f["pointer"]])
            if f["status"] != "passed"
            else f"<code>{esc(f['pointer'])}</code>",
            esc(f.get("expected"), 300),
            esc(f.get("actual"), 300),
            f"<code>{esc(f.get('assertion'))}</code>",
            esc(f.get("hint") or "", 300),
        ]
        for f in sorted(
            findings, key=lambda f: {"failed": 0, "not_observed": 1}.get(f["status"], 2)
        )
    ]
    audit_html = (
        f"<p>{audit['failed']} failed, {audit['notObserved']} not observed, {audit['passed']} passed."
        " Pointers are into the observation (schema"
        f" <code>{esc(OBSERVATION_SCHEMA_ID)}</code>), case assertions into the case.</p>"
        + html_table(
            ["status", "finding", "pointer", "expected", "observed", "case assertion", "hint"],
            finding_rows,
            css="audit",
        )
    )
    observation = render_json(run.record.observation, pointers)
    body = (
        f"<h1>{esc(facts.case)} | {esc(facts.candidate)} | run {facts.repetition}</h1>"
        + facts_html
        + failure_html
        + '<h2 id="scorecard">Scorecard</h2>'
        + scorecard_html
        + '<h2 id="reasons">Failing reasons</h2>'
        + reasons_html
        + '<h2 id="audit">Audit findings</h2>'
        + audit_html
        + '<h2 id="observation">Observation</h2>'
        '<p class="note">The agent\'s observation (untrusted, redacted); highlighted: the fields '
        "the reasons and findings point at.</p>" + f'<pre class="json">{observation}</pre>'
    )
    if site.bundles.index(facts.bundle) > 0:
        change = change_page_path(facts.bundle, facts.candidate, facts.case)
        body = (
            f'<p><a href="{html.escape(link(path, change), quote=True)}" id="then-and-now">'
            "This case on the nights before, beside this night</a></p>" + body
        )
    pair = site.pair_into(facts.bundle)
    crumbs: list[tuple[str, str | None]] = [
        ("Overview", PAGE_INDEX),
        (f"bundle {facts.bundle}", pair.path if pair else None),
        (f"candidate {facts.candidate}", candidate_page_path(facts.candidate)),
        (f"case {facts.case}", case_page_path(facts.case)),
        (f"run {facts.repetition}", None),
    ]
    return page(path, f"{facts.case} | {facts.candidate} | run {facts.repetition}", body, crumbs)
