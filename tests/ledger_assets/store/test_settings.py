"""LedgerSettings: one source of defaults, read from the environment with bounds."""

from __future__ import annotations

import pytest

from ledger_assets.cli import main
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.store.settings import LedgerSettings, SettingsError


def test_the_resources_defaults_are_the_settings_defaults():
    bare, settings = LedgerResource(), LedgerSettings()
    assert {name: getattr(bare, name) for name in LedgerResource.model_fields} == {
        name: getattr(settings, name) for name in LedgerResource.model_fields}
    assert (EmbedderResource().device, EmbedderResource().batch_size) == (settings.embed_device, settings.embed_batch)


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
