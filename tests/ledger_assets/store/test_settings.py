"""LedgerSettings: one source of defaults, read from the environment with bounds."""

from __future__ import annotations

import pytest

from ledger_assets.cli import main
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.store.settings import LedgerSettings, SettingsError


def test_the_resources_defaults_are_the_settings_defaults(monkeypatch):
    for name in [n for n in __import__("os").environ if n.startswith("LEDGER_")]:
        monkeypatch.delenv(name)
    assert LedgerResource().settings() == LedgerSettings()
    bare = EmbedderResource()
    assert LedgerSettings.from_env(embed_device=bare.device, embed_batch=bare.batch_size) == LedgerSettings()


def test_unset_resource_fields_are_read_from_the_environment_at_run_time(monkeypatch, tmp_path):
    """Nothing frozen at load: a field left unset follows its variable; a set variable is bound as EnvVar."""
    from dagster import EnvVar

    from ledger_assets.definitions import build_defs

    resource = LedgerResource()
    monkeypatch.setenv("LEDGER_HOME", str(tmp_path / "a"))
    monkeypatch.setenv("LEDGER_TEST_PRIOR", "0.25")
    assert resource.settings().home == str(tmp_path / "a") and resource.settings().test_prior == 0.25
    monkeypatch.setenv("LEDGER_HOME", str(tmp_path / "b"))
    assert resource.settings().home == str(tmp_path / "b")
    monkeypatch.setenv("LEDGER_RRF_K", "50")
    bound = build_defs(LedgerSettings.from_env(), pinned=False).resources["ledger"]
    assert bound.home == EnvVar("LEDGER_HOME") and bound.rrf_k == EnvVar.int("LEDGER_RRF_K")
    assert bound.test_prior is None  # a float: read from the environment when the run starts


@pytest.mark.parametrize("env, value, message", [
    ("LEDGER_EMBED_BATCH", "4", "LEDGER_EMBED_BATCH must be between 16 and 4096, got 4"),
    ("LEDGER_EMBED_BATCH", "64k", "LEDGER_EMBED_BATCH must be an integer, got '64k'"),
    ("LEDGER_RRF_K", "0", "LEDGER_RRF_K must be between 1 and 1000, got 0"),
    ("LEDGER_LOCK_TIMEOUT_S", "-1", "LEDGER_LOCK_TIMEOUT_S must be between 0 and 86400, got -1.0"),
])
def test_a_bad_setting_is_bad_input_with_its_name(monkeypatch, tmp_path, capsys, env, value, message):
    monkeypatch.setenv("LEDGER_HOME", str(tmp_path))
    monkeypatch.setenv(env, value)
    with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
        LedgerSettings.from_env()
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bounds_hold_at_their_edges(monkeypatch):
    monkeypatch.setenv("LEDGER_EMBED_BATCH", "16")
    assert LedgerSettings.from_env().embed_batch == 16
