"""Smaller document traps: numbers beyond a double, Parquet files of another schema, policy
keys that need RFC 6901 escaping, credential-named manifest fields holding structures, and a
provider outside the schema's list.

Generated cases: numbers spelt past the double range, random missing columns, keys built of
``~`` and ``/``, credential names x structures; pytest's parametrised ids count them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scorecard.contract import ROW_FIELDS, parse_manifest
from scorecard.contract._errors import InputError, PolicyError
from scorecard.contract._pointer import escape
from scorecard.engine import load_policy
from tests.conftest import ROOT
from tests.hardening.conftest import Main

BUNDLE = ROOT / "observations" / "2026-11-01-nightly"
SAMPLE = BUNDLE / "observations.jsonl"


def _huge_numbers() -> list[str]:
    generator = random.Random(21)
    spelt = [f"{generator.randint(1, 9)}e{generator.randint(309, 5000)}" for _ in range(4)]
    return [*spelt, "-1e400", "1.5E+999", "9" * 400 + ".0"]


@pytest.mark.parametrize("number", _huge_numbers())
def test_bundle_id_of_a_number_beyond_a_double_is_a_located_error(
    run_main: Main, tmp_path: Path, number: str
) -> None:
    """``bundle-id`` on an eval-bundle manifest holding ``1e400``: exit 2, the pointer, no
    traceback."""
    manifest = tmp_path / "bundle.json"
    text = '{"schema": "paperclip.runner.eval-bundle.v1", "config": {"n": [1, NUMBER]}}'
    manifest.write_text(text.replace("NUMBER", number))
    code, stdout, stderr = run_main("bundle-id", str(manifest))
    assert code == 2
    assert stdout == ""
    assert "/config/n/1" in stderr
    assert "[non_finite_number]" in stderr


def _missing_columns() -> list[str]:
    generator = random.Random(22)
    return generator.sample(list(ROW_FIELDS), 4)


@pytest.mark.parametrize("missing", _missing_columns())
def test_compare_on_parquet_of_another_schema_names_the_missing_column(
    run_main: Main, tmp_path: Path, missing: str
) -> None:
    """A Parquet file lacking one of the row columns: exit 2 with ``wrong_schema`` naming it."""
    path = tmp_path / "other.parquet"
    columns = {name: pa.array(["x"]) for name in ROW_FIELDS if name != missing}
    pq.write_table(pa.table(columns), path)
    code, _, stderr = run_main("compare", str(path))
    assert code == 2
    assert "[wrong_schema]" in stderr
    assert repr(missing) in stderr
    assert "Traceback" not in stderr


def _awkward_keys() -> list[str]:
    generator = random.Random(23)
    return [
        "".join(generator.choice("ab~/01") for _ in range(generator.randint(1, 6)))
        for _ in range(6)
    ]


@pytest.mark.parametrize("key", _awkward_keys())
@pytest.mark.parametrize("section", ["weights", "thresholds"])
def test_policy_pointers_are_rfc6901_escaped(tmp_path: Path, section: str, key: str) -> None:
    """An unknown dimension named with ``~`` and ``/`` is pointed at as ``~0`` and ``~1``, on
    its line."""
    path = tmp_path / "policy.yaml"
    path.write_text(f'{section}:\n  "{key}": 0.5\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(path)
    expected = "/" + section + "/" + key.replace("~", "~0").replace("/", "~1")
    assert expected == f"/{section}/{escape(key)}"
    assert raised.value.pointer == expected
    assert raised.value.line == 2


CREDENTIAL_NAMES = ["apiKey", "password", "client_secret", "accessToken", "privateKey"]
STRUCTURES = [{"value": "x"}, ["a", "b"], [{"k": 1}], {"nested": {"deeper": "v"}}]


@pytest.mark.parametrize("structure", STRUCTURES, ids=lambda value: type(value).__name__)
@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_a_credential_named_manifest_field_holding_a_structure_is_rejected(
    name: str, structure: object
) -> None:
    """As documented: a credential-named field holding anything but null, a flag or emptiness
    is refused, and its value is never echoed."""
    manifest = json.loads((BUNDLE / "bundle.json").read_text())
    manifest["providerVersions"][name] = structure
    with pytest.raises(InputError) as raised:
        parse_manifest(json.dumps(manifest), source="bundle.json")
    assert raised.value.rule == "secret_in_manifest"
    assert json.dumps(structure) not in str(raised.value)
    assert f"/providerVersions/{name}: manifest carries" in str(raised.value)


@pytest.mark.parametrize("provider", ["claude-code", "Codex", "codex ", "gemini"])
def test_a_provider_outside_the_schema_list_is_scored_and_audited(
    run_main: Main, tmp_path: Path, provider: str
) -> None:
    """The judgement call (README): scored (the reference never reads ``provider``), and the
    audit's ``provider_not_in_case`` finding fails for it."""
    document = json.loads(SAMPLE.read_text().splitlines()[0])
    document["provider"] = provider
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(document) + "\n")
    code, stdout, stderr = run_main("score", str(path), "--workers", "1", "--format", "audit")
    assert code == 0, stderr
    [line] = [json.loads(text) for text in stdout.splitlines()]
    findings = {finding["code"]: finding for finding in line["findings"]}
    assert findings["provider_not_in_case"]["status"] == "failed"
    assert findings["provider_not_in_case"]["pointer"] == "/provider"
