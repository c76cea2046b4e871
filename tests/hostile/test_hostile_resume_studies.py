"""Honest resumes of every study (issue 23, item 5): minary2019, peers, credal-knn and gebel2009.

Each test copies a finished small run, cuts one of its files at a random byte offset (seeded),
runs the same study again in that folder and requires the files of an uninterrupted run: a cut
file is recomputed, never trusted. The completion record (``completed.json``) and the settings
(``study.json``) are cut too: an unreadable record or settings file means starting over. ramel2018
has its own tests in test_hostile_resume.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evstat.experiments.store import RECORD, Store, read_settings


def cut(path: Path, rng: np.random.Generator) -> int:
    """Cut ``path`` at a random byte offset (at least one byte kept, at least one removed)."""
    raw = path.read_bytes()
    at = int(rng.integers(1, len(raw)))
    path.write_bytes(raw[:at])
    return at


def frames_equal(reference: Path, out: Path, names: list[str], drop: tuple[str, ...] = ()) -> None:
    """The CSV files ``names`` of ``out`` hold what ``reference``'s hold (``drop``: wall-clock
    columns, which differ between runs)."""
    for name in names:
        a, b = pd.read_csv(reference / name), pd.read_csv(out / name)
        a, b = a.drop(columns=[c for c in drop if c in a]), b.drop(columns=[c for c in drop if c in b])
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=name)


def rerun_after_cut(reference: Path, tmp_path: Path, name: str, seed: int, run: Callable[[Path], object]) -> int:
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    at = cut(out / name, np.random.default_rng([seed, len(name)]))
    run(out)
    return at


def test_read_settings_refuses_cut_files(tmp_path):
    p = tmp_path / "study.json"
    p.write_text('{"study": "peers", "seed": 3}')
    assert read_settings(p) == {"study": "peers", "seed": 3}
    for at in range(1, len(p.read_bytes())):
        q = tmp_path / f"cut{at}.json"
        q.write_bytes(p.read_bytes()[:at])
        assert read_settings(q) is None, at
    assert read_settings(tmp_path / "absent.json") is None


def test_frames_of_a_unit_are_trusted_only_as_recorded(tmp_path):
    s = Store(tmp_path)
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    a = pd.DataFrame({"k": [1, 2], "x": [0.1, 2 / 3], "note": ["", "failed: x"]})
    s.save_frames("u", paths, [a, pd.DataFrame()])
    got = Store(tmp_path).load_frames("u", paths)
    assert got is not None and got[1].empty
    assert got[0]["x"].tolist() == [0.1, 2 / 3]  # exact floats
    rng = np.random.default_rng(0)
    for _ in range(5):
        raw = paths[0].read_bytes()
        cut(paths[0], rng)
        assert Store(tmp_path).load_frames("u", paths) is None
        paths[0].write_bytes(raw)
    paths[0].write_bytes(paths[0].read_bytes().replace(b"0.1", b"0.2"))  # complete, parses, edited
    assert Store(tmp_path).load_frames("u", paths) is None
    (tmp_path / RECORD).unlink()  # no record: files of unknown origin are not trusted
    assert Store(tmp_path).load_frames("u", paths) is None


# ------------------------------------------------------------------------------ minary2019
MINARY = dict(rounds=1, datasets=["sonar"], quiet=True, methods=["joint_binning"], report=False)
MINARY_FILES = ["error_rates.csv", "reject_curves.csv", "reject_015.csv"]


@pytest.fixture(scope="module")
def minary_reference(tmp_path_factory) -> Path:
    from evstat.experiments.minary2019 import run_minary2019

    out = tmp_path_factory.mktemp("minary") / "ref"
    run_minary2019(out, **MINARY)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", [*MINARY_FILES, RECORD, "study.json"])
def test_minary2019_cut_file_is_recomputed(minary_reference, tmp_path, name):
    from evstat.experiments.minary2019 import run_minary2019

    runs = {}
    at = rerun_after_cut(minary_reference, tmp_path, name, 1,
                         lambda out: runs.setdefault("res", run_minary2019(out, **MINARY)))
    out = tmp_path / "run"
    for f in MINARY_FILES:
        assert (out / f).read_bytes() == (minary_reference / f).read_bytes(), f"{f} after cutting {name} at {at}"
    if name != "study.json":  # a cut CSV or record: what it held is recomputed
        assert runs["res"].units_run >= 1, f"{name} cut at byte {at}: nothing recomputed"
    assert Store(out).units.keys() == Store(minary_reference).units.keys()


@pytest.mark.slow
def test_minary2019_unit_appended_without_its_record_is_recomputed(minary_reference, tmp_path):
    """A run killed between appending a unit's rows and recording the unit: the rows are complete
    but not recorded, so the unit is recomputed (and its rows not doubled)."""
    from evstat.experiments.minary2019 import run_minary2019

    out = tmp_path / "run"
    shutil.copytree(minary_reference, out)
    store = Store(out)
    store.forget(["fig8/simulated/0"])
    store.save()
    res = run_minary2019(out, **MINARY)
    assert res.units_run == 1
    for f in MINARY_FILES:
        assert (out / f).read_bytes() == (minary_reference / f).read_bytes(), f


@pytest.mark.slow
def test_minary2019_edited_row_does_not_match_the_record(minary_reference, tmp_path):
    from evstat.experiments.minary2019 import run_minary2019

    out = tmp_path / "run"
    shutil.copytree(minary_reference, out)
    er = pd.read_csv(out / "error_rates.csv")
    er.loc[0, "n_errors"] += 1  # complete and numeric, but not what was computed
    er.to_csv(out / "error_rates.csv", index=False, float_format="%.10g")
    assert run_minary2019(out, **MINARY).units_run == 1
    assert (out / "error_rates.csv").read_bytes() == (minary_reference / "error_rates.csv").read_bytes()


def test_minary2019_folder_without_record_is_checked_row_by_row(tmp_path):
    """A folder written before the record existed: complete units are adopted into a new record,
    a unit with a row missing is recomputed (the committed runs in reports/ read this way)."""
    import evstat.experiments.minary2019 as mr

    rows = pd.DataFrame({"round": 0, "n_cal": [200] * 3 + [15] * 3, "strategy": list(mr.STRATEGIES) * 2,
                         "reject_cost": mr.FIG8_REJECT_COST, "n_test": 100, "n_decided": 90, "n_errors": 9,
                         "error_rate": 0.09, "accuracy": 0.9, "reject_rate": 0.1, "note": np.nan})
    two = pd.concat([rows, rows.assign(round=1)], ignore_index=True)
    two.iloc[:-1].to_csv(tmp_path / "reject_015.csv", index=False)  # round 1 misses a row
    frame = mr._read_csv(tmp_path / "reject_015.csv", "fig8")
    store = Store(tmp_path)
    units = mr._units_in("fig8", frame)
    done = {u.round for u, g in units.items()
            if store.is_done(mr._key(u), g, mr.COLUMNS["fig8"], mr.KEYS["fig8"], expected=mr._expected_rows(u, []))}
    assert store.legacy and done == {0}


# ------------------------------------------------------------------------------ peers
PEERS = dict(reps=1, rounds=1, n_cals=(45,), truths=("logistic",), datasets=("heart",), n_test=40, quiet=True)
PEERS_FILES = ["sim_metrics.csv", "sim_curves.csv", "real_metrics.csv", "real_curves.csv", "sim_wins.csv"]


@pytest.fixture(scope="module")
def peers_reference(tmp_path_factory) -> Path:
    pytest.importorskip("venn_abers")
    pytest.importorskip("crepes")
    from evstat.experiments.peers import run_peers

    out = tmp_path_factory.mktemp("peers") / "ref"
    run_peers(out, **PEERS)
    return out


def _peers_unit_files(reference: Path) -> list[str]:
    return sorted(f".units/{p.name}" for p in (reference / ".units").glob("*.csv"))


@pytest.mark.slow
@pytest.mark.parametrize("which", ["sim_metrics", "sim_curves", "real_metrics", "real_curves", "record"])
def test_peers_cut_unit_file_is_recomputed(peers_reference, tmp_path, which):
    from evstat.experiments.peers import run_peers

    names = _peers_unit_files(peers_reference)
    assert len(names) == 6  # two simulated units (one and three scores) and one real unit, two files each
    part, kind = which.split("_") if which != "record" else ("", "")
    name = f".units/{RECORD}" if which == "record" else next(
        n for n in names if n.startswith(f".units/{part}_") and n.endswith(f"_{kind}.csv"))
    rerun_after_cut(peers_reference, tmp_path, name, 2, lambda out: run_peers(out, **PEERS))
    out = tmp_path / "run"
    frames_equal(peers_reference, out, PEERS_FILES, drop=("seconds",))
    if which != "record":  # the cut unit was computed again and rewritten (the others were reused)
        a, b = (pd.read_csv(d / name).drop(columns="seconds", errors="ignore")
                for d in (peers_reference, out))
        pd.testing.assert_frame_equal(a, b, check_exact=True)


@pytest.mark.slow
def test_peers_resume_reuses_recorded_units(peers_reference, tmp_path, monkeypatch):
    import evstat.experiments.peers as peers

    out = tmp_path / "run"
    shutil.copytree(peers_reference, out)

    def never(*args, **kwargs):
        raise AssertionError("a unit recorded complete was computed again")

    def never_real(*args, **kwargs):
        raise AssertionError("a unit recorded complete was computed again")

    monkeypatch.setattr(peers, "sim_unit", never)  # the units read the module's names when they run
    monkeypatch.setattr(peers, "real_unit", never_real)
    peers.run_peers(out, **PEERS)
    frames_equal(peers_reference, out, PEERS_FILES)  # reused: even the wall-clock seconds are the same


# ------------------------------------------------------------------------------ credal-knn
CREDAL = dict(runs=1, k_grid=(9,), real_k=(5,), datasets=("iris",), lecture=False, quiet=True)
CREDAL_FILES = ["test12_decisions.csv", "test12_rates.csv", "sim2_rates.csv", "sim2_table.csv", "real_rates.csv",
                "real_table.csv", "claims.csv"]


@pytest.fixture
def small_sim2(monkeypatch):
    import evstat.experiments.credal_knn as ck

    monkeypatch.setattr(ck, "N_GRID", (100,))  # Simulation 2 at one training size: a smaller unit
    return ck


@pytest.fixture
def credal_reference(tmp_path_factory, small_sim2) -> Path:
    out = tmp_path_factory.getbasetemp() / "credal-ref"
    if not (out / RECORD).exists():
        small_sim2.run_credal_knn(out, **CREDAL)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["test12_decisions.csv", "sim2_rates.csv", "real_rates.csv", RECORD])
def test_credal_knn_cut_file_is_recomputed(credal_reference, tmp_path, small_sim2, name):
    rerun_after_cut(credal_reference, tmp_path, name, 3, lambda out: small_sim2.run_credal_knn(out, **CREDAL))
    out = tmp_path / "run"
    for f in CREDAL_FILES:
        assert (out / f).read_bytes() == (credal_reference / f).read_bytes(), f


@pytest.mark.slow
def test_credal_knn_resume_reads_parts_and_other_settings_recompute(credal_reference, tmp_path, small_sim2,
                                                                     monkeypatch):
    out = tmp_path / "run"
    shutil.copytree(credal_reference, out)
    calls = []
    real_sim2 = small_sim2.simulation2
    monkeypatch.setattr(small_sim2, "simulation2", lambda *a: calls.append(a) or real_sim2(*a))
    small_sim2.run_credal_knn(out, **CREDAL)
    assert calls == []  # recorded complete: read back
    for f in CREDAL_FILES:
        assert (out / f).read_bytes() == (credal_reference / f).read_bytes(), f
    small_sim2.run_credal_knn(out, **{**CREDAL, "k_grid": (5,)})  # another K: Simulation 2 again
    assert len(calls) == 1 and set(pd.read_csv(out / "sim2_rates.csv")["K"]) == {5}


# ------------------------------------------------------------------------------ gebel2009
GEBEL = dict(folds=2, seed=5, jobs=1, parts=("two-class",), quiet=True, classifiers=["nb"], datasets=["haberman"])
GEBEL_FILES = ["results.csv", "table.csv"]


@pytest.fixture(scope="module")
def gebel_reference(tmp_path_factory) -> Path:
    from evstat.experiments.gebel2009 import run_gebel2009

    out = tmp_path_factory.mktemp("gebel") / "ref"
    run_gebel2009(out, **GEBEL)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", [*GEBEL_FILES, RECORD, "study.json"])
def test_gebel2009_cut_file_is_recomputed(gebel_reference, tmp_path, name):
    from evstat.experiments.gebel2009 import run_gebel2009

    res = {}
    at = rerun_after_cut(gebel_reference, tmp_path, name, 4, lambda out: res.setdefault("r", run_gebel2009(out, **GEBEL)))
    assert res["r"].units == 2, f"{name} cut at byte {at}: the data set was not recomputed"
    frames_equal(gebel_reference, tmp_path / "run", ["table.csv"])
    frames_equal(gebel_reference, tmp_path / "run", ["results.csv"], drop=("seconds",))
