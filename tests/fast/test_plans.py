"""The kept catalog plans (``fast._plans``): what a start without pydantic stands on.

A kept plan must be what validating the same bytes under the same code gives, or be ignored;
a catalog not seen before is validated, with its errors, as it always was."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from scorecard.contract import CASE_IDS
from scorecard.contract._catalog import Catalog, load_catalog, read_case_files
from scorecard.contract._errors import CaseError
from scorecard.engine import scoring_catalog
from scorecard.fast import _plans
from scorecard.fast._plans import case_plan
from tests.conftest import ROOT


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, and nothing known in this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SCORECARD_CACHE_DIR", str(folder))
    monkeypatch.setattr(_plans, "_known", {})
    return folder


def forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """As a new process: only the cache folder remembers."""
    monkeypatch.setattr(_plans, "_known", {})


def copied_cases(tmp_path: Path) -> Path:
    target = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", target)
    return target


def validated_plans(folder: Path) -> dict[str, tuple[object, ...]]:
    """The plans of the cases in ``folder``, made from the models, without any cache."""
    return {case.id: case_plan(case) for case in load_catalog(folder).cases.values()}


def kept_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("plans-*.json"))


def test_kept_plans_are_those_the_validated_cases_give(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first load validates and keeps the plans; a later one (a new process) reads them,
    equal in value and type to the plans of the validated cases, and loads the catalog checked:
    not validated until a case is asked for, then equal to the validated catalog."""
    expected = validated_plans(ROOT / "cases")
    first = scoring_catalog(ROOT / "cases")
    assert first._cases is not None  # validated now
    assert _plans.case_plans(first) == expected
    assert len(kept_files(cache)) == 1

    forget(monkeypatch)
    second = scoring_catalog(ROOT / "cases")
    assert second._cases is None  # checked: not validated yet
    plans = _plans.case_plans(second)
    assert second._cases is None
    assert repr(plans) == repr(expected)  # tuples stay tuples, bools stay bools
    assert list(plans) == list(CASE_IDS)
    assert second == load_catalog(ROOT / "cases")
    assert second._cases is not None


def test_changed_case_bytes_are_validated_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any change to a case file misses the kept plans: a broken file is an error at load, and
    a changed valid one gets its own plans."""
    folder = copied_cases(tmp_path)
    scoring_catalog(folder)
    forget(monkeypatch)
    case = folder / "03-verification-policy.yaml"
    original = case.read_text(encoding="utf-8")
    case.write_text(original.replace("commentCount: 1", "commentCount: one"), encoding="utf-8")
    with pytest.raises(CaseError) as raised:
        scoring_catalog(folder)
    assert raised.value.source == str(case)
    assert raised.value.pointer == "/assertions/commentCount"

    case.write_text(original + "\n# a comment changes the bytes, not the case\n", encoding="utf-8")
    forget(monkeypatch)
    again = scoring_catalog(folder)
    assert again._cases is not None  # not seen before: validated now
    assert _plans.case_plans(again) == validated_plans(ROOT / "cases")
    assert len(kept_files(cache)) == 2


def test_a_renamed_case_file_is_another_catalog(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key covers the files' names, whose order is the catalog's reading order."""
    folder = copied_cases(tmp_path)
    scoring_catalog(folder)
    (folder / "01-final-response.yaml").rename(folder / "13-final-response.yaml")
    forget(monkeypatch)
    assert scoring_catalog(folder)._cases is not None


@pytest.mark.parametrize(
    "spoil",
    [
        lambda document: "not json",
        lambda document: json.dumps({**document, "format": 0}),
        lambda document: json.dumps({**document, "key": "0" * 64}),
        lambda document: json.dumps(
            {**document, "plans": dict(list(document["plans"].items())[1:])}
        ),
        lambda document: json.dumps(
            {**document, "plans": {**document["plans"], CASE_IDS[0]: "a string"}}
        ),
        lambda document: json.dumps([document]),
    ],
    ids=["not-json", "other-format", "other-key", "a-case-missing", "not-a-plan", "not-an-object"],
)
def test_a_spoilt_cache_file_is_ignored(
    cache: Path, monkeypatch: pytest.MonkeyPatch, spoil: object
) -> None:
    """A cache file that is not what this code wrote for this key is not trusted: the catalog
    is validated again and its plans kept again."""
    scoring_catalog(ROOT / "cases")
    [kept] = kept_files(cache)
    document = json.loads(kept.read_text(encoding="utf-8"))
    kept.write_text(spoil(document), encoding="utf-8")  # type: ignore[operator]
    forget(monkeypatch)
    catalog = scoring_catalog(ROOT / "cases")
    assert catalog._cases is not None
    assert _plans.case_plans(catalog) == validated_plans(ROOT / "cases")
    assert json.loads(kept.read_text(encoding="utf-8")) == document


def test_no_cache_when_the_folder_is_set_empty_or_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``SCORECARD_CACHE_DIR=""`` keeps nothing; a cache folder that cannot be made (a file
    stands there) costs the next run its validation and nothing else."""
    monkeypatch.setattr(_plans, "_known", {})
    monkeypatch.setenv("SCORECARD_CACHE_DIR", "")
    assert _plans.cache_folder() is None
    assert _plans.case_plans(scoring_catalog(ROOT / "cases")) == validated_plans(ROOT / "cases")
    forget(monkeypatch)
    assert scoring_catalog(ROOT / "cases")._cases is not None

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("SCORECARD_CACHE_DIR", str(blocked))
    forget(monkeypatch)
    assert _plans.case_plans(scoring_catalog(ROOT / "cases")) == validated_plans(ROOT / "cases")
    forget(monkeypatch)
    assert scoring_catalog(ROOT / "cases")._cases is not None
    assert blocked.read_text(encoding="utf-8") == "not a folder"


def test_the_default_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCORECARD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    assert _plans.cache_folder() == Path("/somewhere/cache/scorecard")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/someone")
    assert _plans.cache_folder() == Path("/home/someone/.cache/scorecard")


def test_only_the_newest_cache_files_are_kept(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writing a cache file removes the oldest beyond ``KEEP``."""
    monkeypatch.setattr(_plans, "KEEP", 2)
    folder = copied_cases(tmp_path)
    case = folder / "01-final-response.yaml"
    original = case.read_text(encoding="utf-8")
    names: list[str] = []
    for version in range(4):
        case.write_text(f"{original}\n# version {version}\n", encoding="utf-8")
        forget(monkeypatch)
        scoring_catalog(folder)
        [newest] = sorted(set(kept_files(cache)) - {cache / name for name in names})
        names.append(newest.name)
    assert [path.name for path in kept_files(cache)] == sorted(names[-2:])


def test_the_code_identity_covers_every_module_of_contract_and_fast(tmp_path: Path) -> None:
    """A change to any module that validates or plans a case gives another key."""
    package = Path(_plans.__file__).resolve().parents[1]
    copy = tmp_path / "scorecard"
    for folder in ("contract", "fast"):
        shutil.copytree(
            package / folder, copy / folder, ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
    same = _plans.code_identity(copy)
    assert same == _plans.code_identity(package)
    for module in ("contract/_models.py", "contract/_yaml.py", "fast/_fastpath.py"):
        path = copy / module
        original = path.read_bytes()
        path.write_bytes(original + b"\n# changed\n")
        assert _plans.code_identity(copy) != same, module
        path.write_bytes(original)
    assert _plans.code_identity(copy) == same


def test_a_checked_catalog_of_bad_files_fails_when_first_used() -> None:
    """``Catalog.checked`` trusts its caller; the files are still validated before any case is
    used, so bad ones raise then, located, rather than score."""
    files = read_case_files(ROOT / "cases")
    path, data = files.files[0]
    broken = type(files)(files.folder, ((path, data + b"\nnot: [closed\n"), *files.files[1:]))
    catalog = Catalog.checked(broken)
    with pytest.raises(CaseError) as raised:
        catalog["final-response"]
    assert raised.value.source == path


def test_a_cache_file_others_may_write_is_not_read(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept file that group or others may write (or another user owns) could have been
    planted: it is not read, and the catalog is validated again."""
    scoring_catalog(ROOT / "cases")
    [kept] = kept_files(cache)
    assert kept.stat().st_mode & 0o777 == 0o600
    forget(monkeypatch)
    kept.chmod(0o620)
    assert scoring_catalog(ROOT / "cases")._cases is not None
    forget(monkeypatch)
    kept.chmod(0o600)
    assert scoring_catalog(ROOT / "cases")._cases is None
    forget(monkeypatch)
    owner = kept.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    assert scoring_catalog(ROOT / "cases")._cases is not None


def test_a_killed_writers_temporary_file_is_removed_later(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A temporary file left by a writer that was killed is removed by a later write once it is
    old; a recent one (a writer at work) is left alone."""
    cache.mkdir()
    old, recent = cache / ".plans-old.tmp", cache / ".plans-recent.tmp"
    for path in (old, recent):
        path.write_text("{", encoding="utf-8")
    hour_ago = old.stat().st_mtime - 3600
    os.utime(old, (hour_ago, hour_ago))
    scoring_catalog(copied_cases(tmp_path))
    assert not old.exists()
    assert recent.exists()


def _load_in_a_process(cache: Path) -> subprocess.CompletedProcess[str]:
    """A new process loading the catalog with ``cache`` (bounded: a hang fails, not waits)."""
    code = (
        "from scorecard.engine import scoring_catalog; "
        f"print(scoring_catalog(__import__('pathlib').Path({str(ROOT / 'cases')!r}))._cases "
        "is not None)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, "SCORECARD_CACHE_DIR": str(cache)},
    )


@pytest.mark.parametrize("through_a_link", [False, True], ids=["fifo", "link-to-fifo"])
def test_a_fifo_under_the_cache_name_neither_hangs_nor_is_read(
    cache: Path, tmp_path: Path, through_a_link: bool
) -> None:
    """A named pipe (or a link to one) where the cache file should be is not opened for
    reading: the catalog is validated and the plans kept in a regular file again."""
    scoring_catalog(ROOT / "cases")
    [kept] = kept_files(cache)
    kept.unlink()
    if through_a_link:
        os.mkfifo(tmp_path / "pipe")
        os.symlink(tmp_path / "pipe", kept)
    else:
        os.mkfifo(kept)
    done = _load_in_a_process(cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"  # validated: nothing was read from the pipe
    assert stat.S_ISREG(os.lstat(kept).st_mode)
    assert _load_in_a_process(cache).stdout.strip() == "False"  # the new file is used


@pytest.mark.parametrize(
    "content",
    [
        b"[" * 200_000 + b"]" * 200_000,
        b'{"format": 2, "plans": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        b" " * (_plans.MAX_BYTES + 1),
    ],
    ids=["deeply-nested", "nested-inside", "too-large"],
)
def test_a_hostile_cache_file_is_ignored_without_a_traceback(
    cache: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    """Deep nesting (a RecursionError in the parser) or a file past the bound is ignored."""
    scoring_catalog(ROOT / "cases")
    [kept] = kept_files(cache)
    kept.write_bytes(content)
    forget(monkeypatch)
    assert _plans.known_plans(read_case_files(ROOT / "cases")) is None
    catalog = scoring_catalog(ROOT / "cases")
    assert catalog._cases is not None
    assert _plans.case_plans(catalog) == validated_plans(ROOT / "cases")


def _planted(cache: Path) -> Path:
    """The kept file with final-response's comment count changed from 1 to 5, its JSON and
    shape intact (what someone editing the file would leave)."""
    [kept] = kept_files(cache)
    document = json.loads(kept.read_text(encoding="utf-8"))
    plan = document["plans"]["final-response"]
    assert plan[10] == 1
    plan[10] = 5
    kept.write_text(json.dumps(document), encoding="utf-8")
    return kept


def test_a_planted_plan_is_not_kept(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited plan does not carry its digest: it is not read, the plans are made from the
    cases again, and the file is written back as it was."""
    scoring_catalog(ROOT / "cases")
    [kept] = kept_files(cache)
    original = kept.read_bytes()
    _planted(cache)
    forget(monkeypatch)
    catalog = scoring_catalog(ROOT / "cases")
    assert catalog._cases is not None
    assert _plans.case_plans(catalog) == validated_plans(ROOT / "cases")
    assert kept.read_bytes() == original


def test_a_planted_plan_does_not_change_the_summary(cache: Path, tmp_path: Path) -> None:
    """Through the command line: the audit count with an edited cache is the true one."""
    observations = str(ROOT / "observations")

    def summary(cache_dir: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "scorecard", "score", observations, "--out", "/dev/null"],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
            env={**os.environ, "SCORECARD_CACHE_DIR": cache_dir},
        )
        return done.stderr.strip().splitlines()[-1]

    truth = summary("")
    assert summary(str(cache)) == truth  # writes the cache
    _planted(cache)
    assert summary(str(cache)) == truth


@pytest.mark.parametrize(
    ("index", "value"),
    [(0, "true"), (1, "sometimes"), (7, -1), (7, True), (12, "commentary"), (20, [1])],
    ids=["flag-as-text", "capture", "negative-count", "bool-count", "text-not-list", "int-item"],
)
def test_a_plan_of_the_wrong_shape_is_not_read(
    cache: Path, monkeypatch: pytest.MonkeyPatch, index: int, value: object
) -> None:
    """Every item of a plan is checked against the shape ``case_plan`` makes."""
    scoring_catalog(ROOT / "cases")
    [kept] = kept_files(cache)
    document = json.loads(kept.read_text(encoding="utf-8"))
    document["plans"]["final-response"][index] = value
    document["digest"] = _plans._digest(document["key"], document["plans"])
    kept.write_text(json.dumps(document), encoding="utf-8")
    forget(monkeypatch)
    assert _plans.known_plans(read_case_files(ROOT / "cases")) is None
