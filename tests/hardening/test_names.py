"""Names never leak a secret: a secret-shaped ``--bundle-id`` is refused, a secret-shaped file
name is redacted wherever it is written, and ids read from records files are redacted before
any view (``compare``) shows them.

Secrets are generated per family (GitHub, OpenAI-style, Slack, AWS, Google, Stripe, npm, JWT)
with seeded random bodies; pytest's parametrised ids count the cases.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.hardening.conftest import Main

SAMPLE = ROOT / "observations" / "2026-11-01-nightly" / "observations.jsonl"
LINES = SAMPLE.read_text(encoding="utf-8").splitlines()
ALNUM = string.ascii_letters + string.digits


def _body(generator: random.Random, length: int, alphabet: str = ALNUM) -> str:
    return "".join(generator.choice(alphabet) for _ in range(length))


def _secrets(seed: int) -> list[str]:
    """One secret of each family, with random bodies."""
    generator = random.Random(seed)
    upper = string.ascii_uppercase + string.digits
    return [
        "ghp_" + _body(generator, 36),
        "sk-" + _body(generator, 32),
        "xoxb-" + _body(generator, 24),
        "AKIA" + _body(generator, 16, upper),
        "AIza" + _body(generator, 35),
        "sk_live_" + _body(generator, 24),
        "npm_" + _body(generator, 36),
        "eyJ" + _body(generator, 12) + ".eyJ" + _body(generator, 12) + "." + _body(generator, 12),
    ]


@pytest.mark.parametrize("secret", _secrets(1))
def test_a_secret_shaped_bundle_id_is_refused(run_main: Main, tmp_path: Path, secret: str) -> None:
    """Exit 2 before any output, the value withheld from every stream."""
    out = tmp_path / "out.jsonl"
    code, stdout, stderr = run_main(
        "score", str(SAMPLE), "--workers", "1", "--bundle-id", secret, "--out", str(out)
    )
    assert code == 2
    assert "[secret_in_identifier]" in stderr
    assert secret not in stdout + stderr
    assert not out.exists()


@pytest.mark.parametrize("secret", _secrets(2))
def test_a_secret_shaped_file_name_is_redacted_where_written(
    run_main: Main, tmp_path: Path, secret: str
) -> None:
    """``source.file`` of records, ``source`` of ``--errors`` and the error lines hold
    ``[redacted]`` where the name held the secret."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / f"runs-{secret}.jsonl").write_text("\n".join([*LINES[:3], "{broken"]) + "\n")
    records = tmp_path / "records.jsonl"
    errors = tmp_path / "errors.jsonl"
    code, stdout, stderr = run_main(
        "score", str(folder), "--workers", "1", "--format", "records",
        "--out", str(records), "--errors", str(errors),
    )  # fmt: skip
    assert code == 2
    written = records.read_text() + errors.read_text() + stdout + stderr
    assert secret not in written
    files = {json.loads(line)["source"]["file"] for line in records.read_text().splitlines()}
    assert files == {str(folder / "runs-[redacted].jsonl")}
    [error] = [json.loads(line) for line in errors.read_text().splitlines()]
    assert error["source"] == str(folder / "runs-[redacted].jsonl")


@pytest.mark.parametrize("secret", _secrets(3)[:5])
@pytest.mark.parametrize("field", ["candidateId", "bundleId"])
def test_ids_from_records_files_are_redacted_before_compare(
    run_main: Main, tmp_path: Path, secret: str, field: str
) -> None:
    """A records file (written by another tool) whose ids are secret-shaped: compare shows
    ``[redacted]``, never the secret."""
    records = tmp_path / "records.jsonl"
    code, _, stderr = run_main(
        "score", str(SAMPLE), "--workers", "1", "--format", "records", "--out", str(records)
    )
    assert code == 0, stderr
    lines = []
    for line in records.read_text().splitlines():
        record = json.loads(line)
        if record["candidateId"] == "codex-luna" or field == "bundleId":
            record[field] = f"x-{secret}"
        lines.append(json.dumps(record))
    records.write_text("\n".join(lines) + "\n")
    code, stdout, stderr = run_main("compare", str(records), "--format", "json")
    assert code == 0, stderr
    assert secret not in stdout + stderr
    assert "x-[redacted]" in stdout
