"""Honest resumes (issue 23, item 5): a study resumes only from complete units that match its
completion record; files cut at random byte offsets, or a corrupt record, are recomputed and
the resumed result equals an uninterrupted run.

ramel2018 used to keep half of Experiment 1 (46.7% of the claims moved) and a last line cut in
``exp2_history.csv`` with NaN columns.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evstat.experiments.ramel2018 import FILES, run_ramel2018
from evstat.experiments.store import RECORD, Store, read_rows

SMALL = dict(rounds=1, datasets=["sonar"], folds=20, queries1=10, queries2=1, quiet=True, report=False)
COMPARED = ("exp1_ignorance.csv", "exp1_relative.csv", "exp2_history.csv", "exp2_summary.csv", "claims.csv")


def test_examples(doctests):
    doctests("evstat.experiments.store", min_examples=4)


def test_record_that_cannot_be_read_trusts_nothing(tmp_path):
    (tmp_path / RECORD).write_text('{"units": {"a": {"rows": 2, "sha256": ')
    s = Store(tmp_path)
    assert not s.legacy and s.units == {}
    rows = pd.DataFrame({"q": [0, 1], "v": [0.1, 0.2]})
    assert not s.is_done("a", rows, ["q", "v"], ["q"], expected=2)


def test_read_rows_drops_cut_and_text_rows(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("k,v\n1,0.5\n2,abc\n3,0.25\n4,0.")
    got = read_rows(p, ["k", "v"], required=["k", "v"], numeric=["k", "v"])
    assert got["k"].tolist() == [1, 3] and got["v"].dtype == float
    p.write_bytes(b"\xff\xfe garbage")
    assert read_rows(p, ["k", "v"]) is None


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ramel") / "ref"
    run_ramel2018(out, **SMALL)
    return out


def _same_as(reference: Path, out: Path) -> None:
    for name in COMPARED:
        a, b = pd.read_csv(reference / name), pd.read_csv(out / name)
        if name == "exp2_history.csv":  # wall-clock seconds differ between runs
            a, b = a.drop(columns="seconds"), b.drop(columns="seconds")
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=name)


def _cut(path: Path, rng: np.random.Generator) -> int:
    raw = path.read_bytes()
    at = int(rng.integers(1, len(raw) - 1))
    path.write_bytes(raw[:at])
    return at


@pytest.mark.slow
@pytest.mark.parametrize("name", ["exp1_ignorance.csv", "exp2_history.csv"])
@pytest.mark.parametrize("seed", [0, 1])
def test_truncated_file_is_recomputed(reference, tmp_path, name, seed):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    at = _cut(out / name, np.random.default_rng([seed, len(name)]))
    res = run_ramel2018(out, **SMALL)
    if name == "exp2_history.csv":
        assert res["units_run"] >= 1, f"cut at byte {at}: nothing recomputed"
    _same_as(reference, out)


@pytest.mark.slow
def test_half_of_experiment1_is_recomputed_in_a_folder_without_record(reference, tmp_path):
    """The issue's case: exp1_ignorance.csv cut in half, no completion record (a folder written
    before the record existed): Experiment 1 is recomputed, claims equal the full run's."""
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    (out / RECORD).unlink()
    raw = (out / FILES["exp1"]).read_bytes()
    (out / FILES["exp1"]).write_bytes(raw[: len(raw) // 2])
    run_ramel2018(out, **SMALL)
    _same_as(reference, out)
    assert Store(out).units.keys() >= {"exp1"}


@pytest.mark.slow
def test_last_line_cut_mid_row_is_not_kept_with_nan(reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    (out / RECORD).unlink()  # legacy folder: validation alone must catch it
    hp = out / FILES["exp2"]
    raw = hp.read_bytes().rstrip(b"\n")
    hp.write_bytes(raw[: raw.rfind(b",")] + b"\n")  # the last row loses its last cells
    res = run_ramel2018(out, **SMALL)
    assert res["units_run"] == 1
    hist = pd.read_csv(hp)
    assert hist.notna().all().all()
    _same_as(reference, out)


@pytest.mark.slow
def test_edited_rows_do_not_match_the_record(reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    hp = out / FILES["exp2"]
    hist = pd.read_csv(hp)
    hist.loc[0, "ignorance"] += 0.125  # complete, parses, but not what was computed
    hist.to_csv(hp, index=False, float_format="%.10g")
    res = run_ramel2018(out, **SMALL)
    assert res["units_run"] == 1
    _same_as(reference, out)


def test_complete_folder_resumes_without_recomputing(reference, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    before = (out / FILES["exp1"]).read_bytes()
    res = run_ramel2018(out, **SMALL)
    assert res["units_run"] == 0 and (out / FILES["exp1"]).read_bytes() == before
    record = json.loads((out / RECORD).read_text())
    assert set(record["units"]) >= {"exp1", "exp2/sonar/0/RS"}


def test_no_report_writes_no_figures(reference, tmp_path, monkeypatch):
    """``evstat reproduce ramel2018 --no-report`` used to write its figures all the same."""
    import evstat.experiments.ramel2018 as ramel
    from evstat.cli import main

    assert not list(reference.glob("*.png"))  # run_ramel2018(..., report=False)
    seen = {}

    def fake(out, **kwargs):
        seen.update(kwargs)
        return {"out": Path(out), "units_run": 0, "seconds": 0.0}

    monkeypatch.setattr(ramel, "run_ramel2018", fake)
    assert main(["reproduce", "ramel2018", "--rounds", "1", "--no-report", "--quiet", "--out", str(tmp_path)]) == 0
    assert seen["report"] is False and "--no-report" in seen["command"]
    assert main(["reproduce", "ramel2018", "--rounds", "1", "--quiet", "--out", str(tmp_path)]) == 0
    assert seen["report"] is True


# --- evmultinom: each unit's two files, recorded by their SHA-256 ---------------------------

def _fake_unit(calls):
    def unit(dataset, rnd, seed):
        calls.append((dataset, rnd))
        rng = np.random.default_rng([seed, rnd, len(dataset)])
        n = np.arange(5) * 10 + 10
        err = pd.DataFrame({"dataset": dataset, "round": rnd, "n_cal": n, "error": rng.random(5)})
        cur = pd.DataFrame({"dataset": dataset, "round": rnd, "n_cal": n, "curve": rng.random(5)})
        return err, cur
    return unit


@pytest.mark.parametrize("seed", range(4))
def test_evmultinom_unit_files_cut_at_random_offsets_are_recomputed(tmp_path, monkeypatch, seed):
    import evstat.experiments.evmultinom as em

    calls: list = []
    monkeypatch.setattr(em, "unit", _fake_unit(calls))
    monkeypatch.setattr(em, "markdown_tables", lambda out: "tables\n")
    monkeypatch.setattr(em, "figures", lambda out: None)
    ref = tmp_path / "ref"
    em.run_evmultinom(ref, rounds=3, datasets=["iris", "wine"], quiet=True)
    out = tmp_path / "run"
    shutil.copytree(ref, out)
    rng = np.random.default_rng(seed)
    files = sorted((out / ".units").glob("*_*.csv"))
    victim = files[int(rng.integers(len(files)))]
    at = _cut(victim, rng)
    calls.clear()
    res = em.run_evmultinom(out, rounds=3, datasets=["iris", "wine"], quiet=True)
    dataset, rnd = victim.name.rsplit("_", 1)[0].rsplit("_", 1)
    assert calls == [(dataset, int(rnd))], f"{victim.name} cut at byte {at}"
    assert res.units == 1
    for name in ("error_rates.csv", "reject_curves.csv"):
        assert (out / name).read_bytes() == (ref / name).read_bytes()
    calls.clear()
    em.run_evmultinom(out, rounds=3, datasets=["iris", "wine"], quiet=True)
    assert calls == []  # complete now: nothing recomputed


@pytest.mark.parametrize("keep", [0, 3, 6, 8])
def test_evmultinom_seed_stamp_cut_short_is_named(tmp_path, monkeypatch, keep):
    """The units' seed stamp ("seed 2019\\n"): cut short, it is reported as damaged (not read as
    another seed); intact, a different --seed is refused naming both."""
    import evstat.experiments.evmultinom as em

    calls: list = []
    monkeypatch.setattr(em, "unit", _fake_unit(calls))
    monkeypatch.setattr(em, "markdown_tables", lambda out: "tables\n")
    monkeypatch.setattr(em, "figures", lambda out: None)
    out = tmp_path / "run"
    em.run_evmultinom(out, rounds=1, datasets=["iris"], quiet=True)
    stamp = out / ".units" / "seed.txt"
    assert stamp.read_text() == "seed 2019\n"
    with pytest.raises(ValueError, match="holds units of seed 2019, not 7"):
        em.run_evmultinom(out, rounds=1, datasets=["iris"], quiet=True, seed=7)
    stamp.write_bytes(stamp.read_bytes()[:keep])
    with pytest.raises(ValueError, match="seed.txt is damaged .*delete that folder to recompute"):
        em.run_evmultinom(out, rounds=1, datasets=["iris"], quiet=True)
    (out / ".units" / "seed.txt").write_text("2019")  # the earlier format still resumes
    calls.clear()
    em.run_evmultinom(out, rounds=1, datasets=["iris"], quiet=True)
    assert calls == []
