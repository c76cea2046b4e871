"""`evstat predict` (evstat.bulk.predict_file) shows one progress bar over all rows, or none with
quiet=True: the chunks are predicted without bars of their own (in worker processes too, where
they would interleave), through `evstat.config_context(progress_bars=False)`."""

from __future__ import annotations

from pathlib import Path

import pytest

import evstat as ev
from evstat.bulk import predict_file
from evstat import config_context
from evstat.calibration.logistic import progress_bars

CAL = ev.datasets.simulate_gaussian(60, seed=3)
NEW = ev.datasets.simulate_gaussian(12, seed=4)


@pytest.fixture()
def bar_for_every_prediction(monkeypatch):
    """Every belief prediction would show a bar (thresholds of one row)."""
    with config_context(progress_min_rows=1):
        yield ev.evlogit("y ~ x1 + x2", data=CAL)


def test_progress_bars_switch(bar_for_every_prediction, capfd):
    fit = bar_for_every_prediction
    fit.predict(NEW, type="belief")
    assert "Bel/Pl" in capfd.readouterr().err  # the bar, on stderr
    with config_context(progress_bars=False):
        quiet = fit.predict(NEW, type="belief")
        with config_context(progress_bars=True):  # nested: restored on exit
            fit.predict(NEW.head(2), type="belief")
        assert "Bel/Pl" in capfd.readouterr().err
        fit.predict(NEW, type="belief")
    assert capfd.readouterr().err == ""
    fit.predict(NEW.head(2), type="belief")
    assert "Bel/Pl" in capfd.readouterr().err
    assert quiet.equals(fit.predict(NEW, type="belief"))


@pytest.mark.parametrize("quiet", [True, False])
def test_predict_file_shows_no_bar_per_chunk(bar_for_every_prediction, tmp_path: Path, capfd, quiet):
    fit = bar_for_every_prediction
    fit.save(tmp_path / "fit.json")
    NEW.to_csv(tmp_path / "x.csv", index=False)
    capfd.readouterr()
    rows = predict_file(tmp_path / "fit.json", tmp_path / "x.csv", tmp_path / "o.csv", type="belief",
                        chunksize=5, jobs=1, quiet=quiet)
    err = capfd.readouterr().err
    assert rows == 12
    assert "Bel/Pl" not in err  # no bar of the chunks' predictions
    assert ("evstat predict" in err) is not quiet  # the one bar over rows unless quiet


def test_the_old_switch_is_a_deprecated_alias(bar_for_every_prediction, capfd):
    fit = bar_for_every_prediction
    with pytest.warns(DeprecationWarning, match="config_context"):
        with progress_bars(False):
            fit.predict(NEW, type="belief")
    assert "Bel/Pl" not in capfd.readouterr().err
