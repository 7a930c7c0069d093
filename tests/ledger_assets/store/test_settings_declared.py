"""Each setting declared once (store/settings.py): the environment read from the declaration alone, the
Dagster resources' fields and the README's table derived from it."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.store import settings_table
from ledger_assets.store.settings import (LedgerSettings, ProcessSettings, SettingsError, declared, env_name,
                                          process_setting, resource_fields)

ROOT = Path(__file__).resolve().parents[3]
SETTINGS_MODULE = ROOT / "ledger_assets" / "store" / "settings.py"


def _env_reads(source: str, filename: str = "<src>") -> list[tuple[int, str]]:
    """(line, variable) of every LEDGER_* variable named literally where the environment is read:
    os.environ.get/pop/setdefault/[...], os.getenv, `in os.environ`, dagster's EnvVar."""
    def literal(node) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            return str(node.values[0].value)
        return None

    def is_environ(node) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "environ") or \
            (isinstance(node, ast.Name) and node.id == "environ")

    found = []
    for node in ast.walk(ast.parse(source, filename)):
        keys = []
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in ("get", "pop", "setdefault") and is_environ(f.value):
                keys = node.args[:1]
            elif (isinstance(f, ast.Attribute) and f.attr in ("getenv", "int")) or \
                    (isinstance(f, ast.Name) and f.id in ("getenv", "EnvVar")):
                keys = node.args[:1]
        elif isinstance(node, ast.Subscript) and is_environ(node.value):
            keys = [node.slice]
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            keys = [node.left]
        for key in keys:
            name = literal(key)
            if name is not None and name.startswith("LEDGER_"):
                found.append((node.lineno, name))
    return found


def test_the_scan_finds_every_way_of_reading_a_variable():
    src = ('import os\nfrom os import environ, getenv\nfrom dagster import EnvVar\n'
           'a = os.environ.get("LEDGER_A")\nb = os.environ["LEDGER_B"]\nc = os.getenv("LEDGER_C", "")\n'
           'd = "LEDGER_D" in os.environ\ne = environ.get(f"LEDGER_{x}")\nf = getenv("LEDGER_F")\n'
           'g = EnvVar("LEDGER_G")\nh = EnvVar.int("LEDGER_H")\ni = os.environ.pop("LEDGER_I", None)\n'
           'ok = os.environ.get("HF_HUB_OFFLINE")\nalso_ok = "LEDGER_NAME in a message"\n')
    assert [name for _, name in _env_reads(src)] == \
        ["LEDGER_A", "LEDGER_B", "LEDGER_C", "LEDGER_D", "LEDGER_", "LEDGER_F", "LEDGER_G", "LEDGER_H", "LEDGER_I"]


def test_only_the_settings_module_reads_a_ledger_variable():
    offenders = []
    for package in ("chunkers", "ledger_assets"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == SETTINGS_MODULE:
                continue
            offenders += [f"{path.relative_to(ROOT)}:{line}: {name}"
                          for line, name in _env_reads(path.read_text(encoding="utf-8"), str(path))]
    assert offenders == [], "read these through ledger_assets/store/settings.py:\n" + "\n".join(offenders)
    assert _env_reads(SETTINGS_MODULE.read_text(encoding="utf-8")) == []  # it reads them by declared name


def test_every_setting_has_one_variable_and_a_doc():
    names = [env_name(f.name, cls) for cls in (LedgerSettings, ProcessSettings) for f, _, _ in declared(cls)]
    assert len(names) == len(set(names)), names
    assert all(spec.doc and "\n" not in spec.doc for cls in (LedgerSettings, ProcessSettings)
               for _, spec, _ in declared(cls))
    undeclared = {f.name for f in dataclasses.fields(LedgerSettings)} - {f.name for f, _, _ in declared()}
    assert undeclared == {"max_pdf_bytes", "upsert_batch"}  # set in code only, no variable


def test_the_resources_fields_are_the_declared_ones_and_no_secret():
    assert list(LedgerResource.model_fields) == list(resource_fields("ledger"))
    assert list(EmbedderResource.model_fields) == list(resource_fields("embedder"))
    assert {"device", "batch_size"} <= set(EmbedderResource.model_fields)  # the names run configs carry
    secrets = {f.name for f, spec, _ in declared() if spec.secret}
    assert secrets == {"qdrant_api_key", "groq_api_key"}
    assert not secrets & set(LedgerResource.model_fields)
    assert "GROQ_API_KEY" not in repr(LedgerSettings(groq_api_key="gsk_x").with_(qdrant_api_key="k"))
    for name, info in LedgerResource.model_fields.items():  # the launchpad says which variable and default
        assert info.description.startswith(env_name(name) + ": ")
        assert repr(getattr(LedgerSettings(), name)) in info.description or "unset" in info.description


def test_a_run_config_overrides_the_environment_and_an_unset_field_follows_it(monkeypatch):
    monkeypatch.setenv("LEDGER_RRF_K", "40")
    monkeypatch.setenv("LEDGER_DOCS_PRIOR", "0.7")
    assert LedgerResource(rrf_k=9).settings().rrf_k == 9
    assert LedgerResource(rrf_k=9).settings().docs_prior == 0.7
    monkeypatch.setenv("LEDGER_EMBED_BATCH", "32")
    assert EmbedderResource().embedder().batch_size == 32
    assert EmbedderResource(batch_size=64).embedder().batch_size == 64


@pytest.mark.parametrize("env, value, message", [
    ("LEDGER_RERANK", "LLM ", None),
    ("LEDGER_RERANK", "maybe", "LEDGER_RERANK must be one of none, llm, got 'maybe'"),
    ("LEDGER_TEST_PRIOR", "1.5", "LEDGER_TEST_PRIOR must be between 0 and 1, got 1.5"),
    ("LEDGER_GROQ_TIMEOUT_S", "soon", "LEDGER_GROQ_TIMEOUT_S must be a number, got 'soon'"),
    ("QDRANT_URL", "http://localhost:6333", None),
])
def test_the_environment_is_read_from_the_declaration(monkeypatch, env, value, message):
    monkeypatch.setenv(env, value)
    if message is None:
        s = LedgerSettings.from_env()
        assert (s.rerank, s.qdrant_url) in (("llm", ""), ("none", "http://localhost:6333"))
    else:
        with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
            LedgerSettings.from_env()


def test_process_settings_are_read_when_asked(monkeypatch):
    monkeypatch.delenv("LEDGER_DEBUG", raising=False)
    assert process_setting("debug") is False
    monkeypatch.setenv("LEDGER_DEBUG", "1")
    assert process_setting("debug") is True
    monkeypatch.setenv("LEDGER_MCP_WARM_WAIT_S", "2.5")
    assert process_setting("mcp_warm_wait_s") == 2.5
    monkeypatch.setenv("LEDGER_SENSOR_INTERVAL_S", "often")
    with pytest.raises(SettingsError, match="LEDGER_SENSOR_INTERVAL_S must be a number"):
        process_setting("sensor_interval_s")


def test_the_readme_table_is_the_generated_one():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = settings_table.block(readme)
    assert block is not None, f"README.md has no {settings_table.BEGIN} ... {settings_table.END} block"
    assert block == settings_table.markdown_table(), \
        "README's settings table is stale: run `python -m ledger_assets.store.settings_table --write README.md`"


def test_the_table_has_a_row_per_setting_and_write_replaces_only_the_block(tmp_path, capsys):
    table = settings_table.markdown_table()
    for cls in (LedgerSettings, ProcessSettings):
        for f, _, _ in declared(cls):
            assert f"| `{env_name(f.name, cls)}` |" in table
    assert "| `LEDGER_EMBED_BATCH` | `16` | `embedder.batch_size` |" in table
    doc = tmp_path / "README.md"
    doc.write_text(f"# Title\n\nbefore\n{settings_table.BEGIN}\n| old |\n{settings_table.END}\nafter\n")
    assert settings_table.main(["--write", str(doc)]) == 0
    assert doc.read_text() == f"# Title\n\nbefore\n{settings_table.BEGIN}\n{table}\n{settings_table.END}\nafter\n"
    assert settings_table.main(["--write", str(doc)]) == 0 and "already current" in capsys.readouterr().err
    doc.write_text("# no markers\n")
    assert settings_table.main(["--write", str(doc)]) == 2
    err = capsys.readouterr().err
    assert "no <!-- settings:begin -->" in err and "Traceback" not in err
    assert settings_table.main(["--write", str(tmp_path / "missing.md")]) == 2
