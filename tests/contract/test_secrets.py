"""Secret hygiene: secret-shaped values never leave, in any output format."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorecard.contract._secrets import (
    REFERENCE_SECRET,
    SECRET_PATTERNS,
    find_secret,
    is_secret_key,
    redact,
)

# One canary per kind of secret the engine must recognise (none is a real credential).
CANARIES = {
    "provider_api_key": "sk-proj-Zq8xW2vN4mK7pL1rT5yU9iO3",
    "bearer_token": "Bearer eyJfakefakefakefakefake1234",
    "github_token": "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
    "slack_token": "xoxb-123456789012-abcdefghijkl",
    "google_api_key": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "stripe_key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "npm_token": "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "pypi_token": "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "pem_private_key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\n-----END RSA PRIVATE KEY-----",
    "credential_assignment": "password=hunter2hunter2",
}
# The part of each canary that must never be seen again.
NEEDLES = [
    "Zq8xW2vN4mK7pL1rT5yU9iO3",
    "eyJfakefakefakefakefake1234",
    "0123456789abcdefghijklmnopqrstuvwxyz",
    "123456789012-abcdefghijkl",
    "SyA1234567890abcdefghijklmnopqrstuv",
    "4eC39HqLyjWDarjtT1zdp7dc",
    "abcdefghijklmnopqrstuvwxyz0123456789",
    "AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0",
    "IOSFODNN7EXAMPLE",
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "MIIEowIBAAKCAQEA1234",
    "hunter2hunter2",
]


@pytest.mark.parametrize(("kind", "value"), list(CANARIES.items()))
def test_each_kind_of_secret_is_recognised_and_redacted(kind: str, value: str) -> None:
    """Every canary is found (by its own pattern or the reference rule) and fully redacted."""
    text = f"before {value} after"
    assert find_secret(text) is not None
    cleaned = redact(text)
    assert cleaned.startswith("before [redacted]")
    assert all(needle not in cleaned for needle in NEEDLES)


@pytest.mark.parametrize(
    "text",
    [
        "marker order violated: answer before question",
        "observed 3 runs, bound is 2",
        "forbidden call(s) invoked: request_review",
        "latencyMs 180000 exceeds budget 150000",
        "semantic_receipt:ce5b2a9231f51707",
        "provider trace did not exercise one_to_many lineage",
        "skill-based routing for sk-learn models",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    """Reasons and ids that merely look technical are not redacted."""
    assert (find_secret(text), redact(text)) == (None, text)


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("apiKey", True),
        ("api_key", True),
        ("clientSecret", True),
        ("sessionToken", True),
        ("password", True),
        ("privateKey", True),
        ("Authorization", True),
        ("credentials", True),
        ("tokenCount", True),
        ("totalTokens", False),
        ("caseId", False),
        ("receiptIds", False),
    ],
)
def test_secret_named_keys(key: str, secret: bool) -> None:
    """Credential-named keys are recognised; token counters are not."""
    assert is_secret_key(key) is secret


def plant(observation: dict[str, Any]) -> dict[str, Any]:
    """Put a canary into every free-text field of an observation (ids excepted)."""
    planted = copy.deepcopy(observation)
    secrets = list(CANARIES.values())
    pick = iter(secrets * 10)
    for part in ("lifecycle", "continuation", "presentation"):
        for check in planted[part]["checks"]:
            check["passed"] = False
            check["reason"] = f"failed because {next(pick)}"
            check["evidenceIds"] = [next(pick)]
    base = planted["base"]
    base["observedCalls"] = [next(pick), "finish_task"]
    base["forbiddenCalls"] = [base["observedCalls"][0]]
    base["controlPlaneOwned"] = True
    base["trace"]["runId"] = next(pick)
    base["trace"]["receiptIds"] = [next(pick)]
    base["provenance"] = {"source": next(pick), "apiKey": "plainvalue123456"}
    planted["lifecycle"]["issueStatus"] = next(pick)
    planted["lifecycle"]["runStatus"] = next(pick)
    planted["presentation"]["markers"] = [next(pick)]
    planted["presentation"]["responseSource"] = next(pick)
    planted["observedPrpEventTypes"] = [next(pick)]
    planted["artifactDigests"] = [next(pick)]
    planted["traceLineage"]["traceRef"] = next(pick)
    planted["vendorNotes"] = {"token": next(pick)}
    return planted


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the real entry point."""
    return subprocess.run(
        [sys.executable, "-m", "scorecard", *args], capture_output=True, text=True, check=False
    )


def test_no_canary_survives_in_any_output(tmp_path: Path, observation: dict[str, Any]) -> None:
    """Secrets planted everywhere appear in no output format, error file or message."""
    planted = plant(observation)
    failing = plant(observation)
    failing["classification"] = "candidate_failure"
    failing["failure"] = {
        "code": "budget_exceeded",
        "category": "candidate",
        "retryable": False,
        "message": f"leaked {CANARIES['github_token']} and {CANARIES['aws_access_key']}",
    }
    infrastructure = plant(observation)
    infrastructure["classification"] = "infrastructure_failure"
    infrastructure["failure"] = {
        "code": "x",
        "category": "provider",
        "retryable": True,
        "message": f"auth {CANARIES['provider_api_key']}",
    }
    bad_id = plant(observation)
    bad_id["candidateId"] = CANARIES["stripe_key"]
    duplicate_key = (
        '{"' + CANARIES["aws_access_key"] + '": 1, "' + CANARIES["aws_access_key"] + '": 2}'
    )
    source = tmp_path / "runs.jsonl"
    source.write_text(
        "\n".join(
            [
                json.dumps(planted),
                json.dumps(failing),
                json.dumps(infrastructure),
                json.dumps(bad_id),
                duplicate_key,
            ]
        )
        + "\n"
    )
    outputs: list[str] = []
    for output_format in ("jsonl", "json", "table", "records", "audit"):
        errors = tmp_path / f"errors-{output_format}.jsonl"
        done = run("score", str(source), "--format", output_format, "--errors", str(errors))
        assert done.returncode == 2
        outputs += [done.stdout, done.stderr, errors.read_text()]
    for explain_format in ("text", "json"):
        done = run("explain", str(source), "--format", explain_format)
        outputs += [done.stdout, done.stderr]
    joined = "\n".join(outputs)
    assert "[redacted]" in joined
    leaked = [needle for needle in NEEDLES if needle in joined]
    assert leaked == []
    records = [json.loads(line) for line in outputs[9].splitlines()]  # records stdout
    # "sk-proj-..." escapes the reference's narrower rule, so that run is scored (redacted);
    # the secret-shaped candidate id and the duplicate key are rejected.
    assert len(records) == 3
    assert records[2]["failure"]["message"] == "auth [redacted]"
    assert len(outputs[11].splitlines()) == 2  # records --errors file


def test_secret_shaped_candidate_ids_are_rejected(observation: dict[str, Any]) -> None:
    """An id that every output would echo may not be secret-shaped."""
    from scorecard.contract._errors import ObservationError
    from scorecard.core._validation import validate_observation

    observation["candidateId"] = CANARIES["slack_token"]
    with pytest.raises(ObservationError) as raised:
        validate_observation(observation)
    assert (raised.value.rule, raised.value.pointer) == ("secret_in_identifier", "/candidateId")
    assert "abcdefghijkl" not in str(raised.value)


#: Common spellings of the promised families, each with the part that must not survive.
SPELLINGS = [
    ("GITHUB_TOKEN=ghx0aZ9bY8cX7dW6", "ghx0aZ9bY8cX7dW6"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCY", "wJalrXUtnFEMIK7MDENGbPxRfiCY"),
    ("client_secret: 9f8e7d6c5b4a3210", "9f8e7d6c5b4a3210"),
    ("https://api.example/cb?access_token=QWxhZGRpbjpvcGVu&x=1", "QWxhZGRpbjpvcGVu"),
    ('{"password": "correct-horse-battery"}', "correct-horse-battery"),
    ('{"apiKey":"k3yk3yk3yk3yk3y"}', "k3yk3yk3yk3yk3y"),
    ("密钥sk-proj-Zq8xW2vN4mK7pL1rT5yU9iO3", "Zq8xW2vN4mK7pL1rT5yU9iO3"),
    ("x_ghp_0123456789abcdefghijklmnopqrstuvwxyz", "0123456789abcdefghijklmnopqrstuvwxyz"),
    ("xapp-1-A0123456789-0123456789-abcdef", "A0123456789-0123456789-abcdef"),
    ("ya29.a0AfH6SMBx1234567890abcdefghij", "a0AfH6SMBx1234567890abcdefghij"),
    ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0fakefake\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF0fakefake",
    ),
]


@pytest.mark.parametrize(("text", "needle"), SPELLINGS)
def test_common_spellings_are_recognised_and_redacted(text: str, needle: str) -> None:
    """Environment-style names, URL parameters, JSON in text and glued tokens are all caught."""
    assert find_secret(text) is not None
    assert needle not in redact(text)


#: Text that may sit right before or after a secret in free text.
_CONTEXT = st.lists(
    st.sampled_from([*"_ :;,.()[]{}<>/\\|\"'=\t\n", "密钥", "トークン", "é", "—"]), max_size=6
).map("".join)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(
    kind=st.sampled_from(sorted(CANARIES)),
    before=_CONTEXT,
    after=_CONTEXT,
)
def test_a_secret_in_any_context_never_survives(kind: str, before: str, after: str) -> None:
    """Whatever punctuation, underscore or CJK text surrounds a canary, none of it is left."""
    text = f"{before}{CANARIES[kind]}{after}"
    assert find_secret(text) is not None
    cleaned = redact(text)
    assert "[redacted]" in cleaned
    assert all(needle not in cleaned for needle in NEEDLES)


def _every_pattern(text: str) -> str:
    """The definition the anchors must not change: every pattern applied, in order."""
    for pattern in REFERENCE_SECRET:
        text = pattern.sub("[redacted]", text)
    for _, pattern in SECRET_PATTERNS:
        text = pattern.sub("[redacted]", text)
    return text


#: Pieces of secrets, keys and ordinary reasons, in any case (the patterns' IGNORECASE ones
#: included), glued into text: what the anchors must never wrongly skip.
_PIECES = st.sampled_from(
    [
        *CANARIES.values(),
        *(value.upper() for value in CANARIES.values()),
        *(value.swapcase() for value in CANARIES.values()),
        "totalTokens 182943 exceeds budget 64000",
        "API_KEY",
        "Api-Key",
        "ACCESS_KEY",
        "AuthToken",
        "PASSWD",
        "\u017fecret",  # long s: IGNORECASE matches it as "s"; casefold() too
        "to\u212aen",  # Kelvin sign: IGNORECASE and casefold() read it as "k"
        "=",
        ": ",
        '": "',
        "abcdefgh12345678",
        "0123456789abcdefghijklmnopqrstuvwxyz",
        " ",
        "_",
        "-",
        ".",
    ]
)


@settings(derandomize=True, deadline=None, max_examples=1500)
@given(st.lists(_PIECES, max_size=8).map("".join))
def test_the_anchors_never_skip_a_pattern_that_matches(text: str) -> None:
    """``redact`` runs a pattern only on text holding one of its anchors: on 1,500 generated
    texts it gives what applying every pattern gives, and ``find_secret`` agrees with it."""
    expected = _every_pattern(text)
    assert redact(text) == expected
    assert (find_secret(text) is None) == (expected == text)
