"""Bundle manifests: eval-bundle ids, campaign manifests, folder ids, secrets rejected."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorecard.contract._bundles import folder_bundle_id, parse_manifest
from scorecard.contract._errors import ManifestError
from scorecard.contract._jsformat import canonical_json, format_js_number, js_json
from scorecard.contract._secrets import find_secret


def campaign(**changes: Any) -> dict[str, Any]:
    """A valid campaign manifest with ``changes`` applied."""
    manifest: dict[str, Any] = {
        "schema": "scorecard.campaign.v1",
        "id": "campaign-2026-11-01",
        "runnerVersion": "0.8.0",
        "promptPolicy": "exact-single-call",
        "providerVersions": {"codex": "0.52.0", "opencode": "1.4.2", "acpx": "0.9.1"},
        "scheduleSeed": 7,
        "candidates": [
            {
                "id": "codex-luna",
                "slot": 0,
                "adapter": "codex-app-server",
                "provider": "codex",
                "model": "gpt-5.6-luna",
                "tier": "strong",
                "reasoningEffort": "medium",
                "budget": {
                    "maxLatencyMs": 180000,
                    "maxAttempts": 3,
                    "maxCostUsd": 1.5,
                    "maxTotalTokens": 100000,
                },
            }
        ],
    }
    manifest.update(changes)
    return manifest


@pytest.mark.parametrize(
    ("value", "spelling"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (10**21, "1e+21"),
        (1e20, "100000000000000000000"),
        (5e-7, "5e-7"),
        (1.5e-6, "0.0000015"),
        (123456789.125, "123456789.125"),
        (0.1 + 0.2, "0.30000000000000004"),
        (12345678901234567890, "12345678901234567000"),
        (-2.5, "-2.5"),
    ],
)
def test_numbers_are_spelt_as_javascript_does(value: float, spelling: str) -> None:
    """Number spellings follow ECMAScript Number::toString (values checked in Node.js)."""
    assert format_js_number(value) == spelling


@pytest.mark.parametrize(
    ("value", "spelling"),
    [
        (2.0**60, "1152921504606847000"),
        (3.562276232912935e16, "35622762329129350"),
        (2.0**53, "9007199254740992"),
    ],
)
def test_js_json_spells_large_integral_doubles_as_javascript_does(
    value: float, spelling: str
) -> None:
    """``JSON.stringify(2 ** 60)`` is 1152921504606847000: shortest digits, not every digit."""
    assert js_json({"n": value}) == '{"n":' + spelling + "}"


def test_canonical_json_sorts_keys_by_utf16_code_units() -> None:
    """Keys sort by UTF-16 code units: an astral character sorts before U+FFFF."""
    assert canonical_json({"\uffff": 1, "\U0001f600": 2, "a": [1.0, None]}) == (
        '{"a":[1,null],"\U0001f600":2,"\uffff":1}'
    )


def test_a_campaign_manifest_states_its_id_and_roster() -> None:
    """A campaign manifest's id is the one it states; its roster is indexed by candidate."""
    info = parse_manifest(json.dumps(campaign()))
    assert (info.id, info.kind) == ("campaign-2026-11-01", "campaign")
    assert info.candidates["codex-luna"].model == "gpt-5.6-luna"


def test_a_campaign_manifest_may_state_its_night() -> None:
    """``night`` is optional, an ISO calendar date, and kept as written."""
    assert parse_manifest(json.dumps(campaign())).campaign.night is None  # type: ignore[union-attr]
    info = parse_manifest(json.dumps(campaign(night="2026-11-01")))
    assert info.campaign is not None
    assert info.campaign.night == "2026-11-01"


@pytest.mark.parametrize(
    ("manifest", "rule", "pointer"),
    [
        (campaign(id=""), "string_pattern_mismatch", "/id"),
        (campaign(night="2026-11-1"), "string_pattern_mismatch", "/night"),
        (campaign(night="2026-02-30"), "value_error", "/night"),
        (campaign(night=20261101), "wrong_type", "/night"),
        (campaign(scheduleSeed="7"), "wrong_type", "/scheduleSeed"),
        (campaign(candidates=[]), "too_short", "/candidates"),
        (campaign(extra=1), "unknown_field", "/extra"),
        (campaign(apiKey="hunter2hunter2"), "secret_in_manifest", "/apiKey"),
        (campaign(apiKey={"value": "hunter2hunter2"}), "secret_in_manifest", "/apiKey"),
        (campaign(password=["hunter2hunter2"]), "secret_in_manifest", "/password"),
        (campaign(token=12345678), "secret_in_manifest", "/token"),
        (
            campaign(promptPolicy="use sk-abcdefghijklmnopqrstu"),
            "secret_in_manifest",
            "/promptPolicy",
        ),
        ({"schema": "something.else"}, "unsupported_schema", "/schema"),
    ],
)
def test_bad_manifests_are_rejected(manifest: dict[str, Any], rule: str, pointer: str) -> None:
    """A malformed or secret-bearing manifest is a located ManifestError."""
    with pytest.raises(ManifestError) as raised:
        parse_manifest(json.dumps(manifest), source="bundle.json")
    assert (raised.value.rule, raised.value.pointer) == (rule, pointer)
    assert "hunter2" not in str(raised.value)
    assert "sk-abcdefghijklmnopqrstu" not in str(raised.value)


def test_a_repeated_candidate_is_rejected() -> None:
    """Candidate ids are unique within a roster."""
    manifest = campaign()
    manifest["candidates"].append(dict(manifest["candidates"][0], slot=1))
    with pytest.raises(ManifestError) as raised:
        parse_manifest(json.dumps(manifest))
    assert (raised.value.rule, raised.value.pointer) == (
        "duplicate_candidate_id",
        "/candidates/1/id",
    )


@pytest.mark.parametrize(
    "name",
    [
        "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
        "run GITHUB_TOKEN=abcdefgh12345678",
        "sk-proj-Zq8xW2vN4mK7pL1rT5yU9iO3",
        "xoxb 123456789012 abcdefghijkl",
    ],
)
def test_a_secret_shaped_folder_name_never_becomes_an_id(name: str) -> None:
    """The folder id is redacted, also when only the cleaning would have formed the token."""
    bundle_id = folder_bundle_id(name)
    assert bundle_id.startswith("local-")
    assert "redacted" in bundle_id
    assert find_secret(bundle_id) is None
    assert "0123456789abcdefghij" not in bundle_id
    assert "Zq8xW2vN4mK7" not in bundle_id


def test_a_folder_without_manifest_gets_a_readable_id() -> None:
    """Unmanifested folders are `local-<name>`, with unsafe characters folded."""
    assert folder_bundle_id("2026-11-01 nightly") == "local-2026-11-01-nightly"
    assert folder_bundle_id("///") == "local-root"


def test_bundle_id_command_prints_only_the_id(tmp_path: Path) -> None:
    """`scorecard bundle-id` prints the id alone on one line."""
    text = (
        '{"schema":"paperclip.runner.eval-bundle.v1","model":{"id":"m","temperature":1E3},'
        '"grants":[]}'
    )
    path = tmp_path / "bundle.json"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "bundle-id", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    # sha256 of {"grants":[],"model":{"id":"m","temperature":1000},"schema":"paperclip.runner.eval-bundle.v1"}
    expected = (
        "evb-"
        + __import__("hashlib")
        .sha256(
            b'{"grants":[],"model":{"id":"m","temperature":1000},'
            b'"schema":"paperclip.runner.eval-bundle.v1"}'
        )
        .hexdigest()[:16]
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, expected + "\n", "")


def test_bundle_id_command_reports_a_bad_manifest(tmp_path: Path) -> None:
    """A broken manifest gives one error line and exit status 2."""
    path = tmp_path / "bundle.json"
    path.write_text("{not json", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "bundle-id", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "malformed_json" in done.stderr


def _nested(levels: int) -> dict[str, Any]:
    document: dict[str, Any] = {"schema": "paperclip.runner.eval-bundle.v1"}
    inner = document
    for _ in range(levels):
        inner["k"] = {}
        inner = inner["k"]
    return document


def test_a_deeply_nested_manifest_is_a_located_error() -> None:
    """600 levels (deeper than the recursive checks could walk) are refused with a pointer."""
    with pytest.raises(ManifestError) as caught:
        parse_manifest(json.dumps(_nested(600)), source="bundle.json")
    assert caught.value.rule == "too_deep"
    assert caught.value.pointer == "/k" * 65


def test_a_manifest_at_the_depth_limit_is_accepted() -> None:
    """64 levels below the manifest object are still a manifest."""
    assert parse_manifest(json.dumps(_nested(64))).id.startswith("evb-")


def test_a_deep_manifest_loses_only_its_own_bundle(tmp_path: Path) -> None:
    """`score` rejects the deep bundle with one line and still scores the other bundle."""
    root = Path(__file__).resolve().parents[2]
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "bundle.json").write_text(json.dumps(_nested(600)), encoding="utf-8")
    sample = root / "observations" / "2026-11-08-nightly" / "observations.jsonl"
    (deep / "observations.jsonl").write_bytes(sample.read_bytes())
    good = root / "observations" / "2026-11-15-nightly"
    done = subprocess.run(
        [sys.executable, "-m", "scorecard", "score", str(deep), str(good), "--format", "jsonl"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "[too_deep]" in done.stderr
    expected = len((good / "observations.jsonl").read_text().splitlines())
    assert len(done.stdout.splitlines()) == expected
