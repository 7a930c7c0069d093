"""`make setup`'s installer tells uv what pip would use here, and leaves to pip what it cannot carry over."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from tests.e2e.processes import ROOT

_spec = importlib.util.spec_from_file_location("install_deps", ROOT / "scripts" / "install_deps.py")
install_deps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_deps)


@pytest.fixture()
def pip_config(tmp_path, monkeypatch):
    """Real pip reads a config file of the test's and these PIP_* variables only."""
    for name in list(os.environ):
        if name.startswith("PIP_"):
            monkeypatch.delenv(name)
    conf = tmp_path / "pip.conf"
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    return conf


def test_indexes_links_constraints_and_cert_reach_uv(pip_config, monkeypatch):
    pip_config.write_text("[global]\nextra-index-url = file:///a/simple\n    file:///b/simple\n"
                          "find-links = /global/wheels\nconstraint = /c.txt\ncert = /ca.pem\n"
                          "disable-pip-version-check = 1\n[install]\nfind-links = /install/wheels\n")
    monkeypatch.setenv("PIP_FIND_LINKS", "/env/wheels")
    settings = install_deps.pip_settings(sys.executable)
    cmd, env = install_deps.uv_command("uv", sys.executable, settings, ["-e", ".[dev]"])

    assert cmd[-2:] == ["-e", ".[dev]"]
    assert ["--index-strategy", "unsafe-best-match"] == cmd[cmd.index("--index-strategy"):][:2]
    pairs = list(zip(cmd, cmd[1:]))
    assert ("--extra-index-url", "file:///a/simple") in pairs and ("--extra-index-url", "file:///b/simple") in pairs
    assert ("--constraints", "/c.txt") in pairs
    # The environment beats [install], which beats [global], as in pip.
    assert ("--find-links", "/env/wheels") in pairs
    assert ("--find-links", "/install/wheels") not in pairs and ("--find-links", "/global/wheels") not in pairs
    assert env["SSL_CERT_FILE"] == "/ca.pem"


def test_a_setting_uv_is_not_told_about_leaves_the_install_to_pip(pip_config):
    pip_config.write_text("[global]\nextra-index-url = file:///a/simple\nonly-binary = :all:\n")
    settings = install_deps.pip_settings(sys.executable)
    with pytest.raises(install_deps.Unsupported, match="only-binary"):
        install_deps.uv_command("uv", sys.executable, settings, ["torch"])
