"""Fifty-ninth round: the parsed-settings path on real code. `secrets_recall.py --settings` chunks sixteen public
repositories' settings files as a run does (held out: no round had read them this way) and lists every value it
redacts, most of them no secret at main (figures: benchmarks/secrets_recall.md, round 59). The shapes below are theirs
(values made up where a secret is meant), each a look-alike kept or a secret still redacted; and the square-of-the-run
reading of an ini file's continued value that the same run found (sentry-python's tox.ini)."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import REDACTED, redact_value
from chunkers.sandbox import chunk_file_guarded

GENERATED = "Zq8vK2pLm9Xc4Rt7wq"


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


@pytest.mark.parametrize("name, text, kept", [
    # a section is named by its last word: a job, a history, a settings block, a package in a lock file are none
    ("ci.yml", "jobs:\n  check-secret-access:\n    runs-on: ubuntu-22.04\n", "runs-on = ubuntu-22.04"),
    ("a.json", '{"changePasswordUriSettings": {"cacheHours": 24}}', "cacheHours = 24"),
    ("a.json", '{"items": [{"passwordHistory": [{"lastUsedDate": "2025-11-02T10:00:00Z"}]}]}', "2025-11-02T10:00:00Z"),
    ("packages.lock.json", '{"dependencies": {"Microsoft.Extensions.Configuration.UserSecrets": {"type": "Transitive"}}}',
     "type = Transitive"),
    # what the key's name says it is
    ("x.csproj", "<Project><PropertyGroup><UserSecretsId>e0dba0c6-d131-43bd-9143-2260f11a14ad</UserSecretsId>"
                 "</PropertyGroup></Project>", "e0dba0c6-d131-43bd-9143-2260f11a14ad"),
    ("openid-configuration.json", '{"id_token_signing_alg_values_supported": ["RS256"]}', "= RS256"),
    ("preset.json", '{"permissions": {"readOnly": 0.82, "hidePasswords": 0.04}}', "hidePasswords = 0.04"),
    ("cassandra.yaml", "credentials_validity_in_ms: 2000\n", "credentials_validity_in_ms = 2000"),
    ("alembic.ini", "[loggers]\nkeys = root,sqlalchemy,alembic\n", "keys = root,sqlalchemy,alembic"),
    # a name, not a value: an element's naming attribute, a reference's key, a pair's name, secrets' names
    ("nuget.config", '<configuration><packageSourceMapping><packageSource key="nuget"><package pattern="*" />'
                     "</packageSource></packageSourceMapping></configuration>", "@key = nuget"),
    ("SharedResources.resx", '<root><data name="PasswordGenerator" xml:space="preserve"><value>Password generator'
                             "</value></data></root>", "@name = PasswordGenerator"),
    ("db.yml", "spec:\n  env:\n    - name: DB_USER\n      valueFrom:\n        secretKeyRef:\n          name: db\n"
               "          key: username\n", "key = username"),
    ("syft.json", '{"manifest": {"main": [{"key": "Bundle-SymbolicName", "value": "org.example.core"}]}}',
     "key = Bundle-SymbolicName"),
    ("compose.yaml", "services:\n  redis:\n    secrets:\n      - ssl-ca\n", "secrets:0 = ssl-ca"),
    ("build.yml", 'jobs:\n  refs:\n    steps:\n      - with:\n          secrets: "BW-GHAPP-ID,BW-GHAPP-KEY"\n',
     "BW-GHAPP-ID,BW-GHAPP-KEY"),
    # where something is, and published identifiers
    ("compose.yaml", "secrets:\n  ssl-ca:\n    file: 'ca.crt'\n", "file = ca.crt"),
    ("appsettings.json", '{"Scripts": {"SecretsSetup": "setup_secrets.ps1"}}', "SecretsSetup = setup_secrets.ps1"),
    ("media.json", '{"Path": "/Media/MyVideo-720p.mp4"}', "Path = /Media/MyVideo-720p.mp4"),
    ("headends.json", '[{"uri": "/20141201/lineups/USA-CA00053-DEFAULT"}]', "USA-CA00053-DEFAULT"),
    ("schedules.json", '[{"md5": "Sy8HEMBPcuiAx3FBukUhKQ"}]', "md5 = Sy8HEMBPcuiAx3FBukUhKQ"),
    ("spdx.json", '{"packages": [{"SPDXID": "SPDXRef-Package-java-archive-HdrHistogram-2c7953c2c68ec3bc", '
                  '"licenseDeclared": "LicenseRef-d509473237fa971bc0a8ad7708f3cd561fcf86ef2e611701ed8eec621fd6575e"}]}',
     "SPDXRef-Package-java-archive-HdrHistogram-2c7953c2c68ec3bc"),
    ("cassette.yaml", "headers:\n  CF-RAY:\n  - 93f47072dde6f88d-IAD\n", "93f47072dde6f88d-IAD"),
    ("cipher.schema.json", '{"$defs": {"login": {"properties": {"passwordHistory": {"items": '
                           '{"$ref": "#/$defs/passwordHistory"}}}}}}', "$ref = #/$defs/passwordHistory"),
    ("appsettings.json", '{"ConnectionStrings": {"Redis": "localhost"}}', "Redis = localhost"),
    ("inspect.json", '{"Config": {"Env": ["REDIS_DOWNLOAD_SHA=06a339e491306783dcf55b97f15a5dbcbdc01ccbde6dc23027c4'
                     '75cab735e914"]}}', "REDIS_DOWNLOAD_SHA=06a339e4"),
])
def test_a_settings_look_alike_is_kept(name, text, kept):
    body = _body(name, text)
    assert kept in body and REDACTED not in body, body


@pytest.mark.parametrize("name, text", [
    # a pair's value is judged under the pair's name: a Kubernetes env's, a tag's, a HAR's form field
    ("deploy.yml", f"spec:\n  env:\n    - name: DB_PASSWORD\n      value: {GENERATED}\n"),
    ("deploy.yml", "spec:\n  env:\n    - name: DB_PASSWORD\n      value: hunter2\n"),
    ("tags.json", f'{{"Tags": [{{"Key": "ApiKey", "Value": "{GENERATED}"}}]}}'),
    ("session.har", '{"postData": {"params": [{"name": "password", "value": "Wint3rIsHere"}]}}'),
    # a section whose last word is the secret's, a list's NAME=value under a password's name
    ("appsettings.json", '{"db_credentials": {"host": "db", "password": "Wint3rIsHere"}, '
                         '"ConnectionStrings": {"Db": "Host=db;Password=Wint3rIsHere"}}'),
    ("compose.yaml", "services:\n  db:\n    environment:\n      - MYSQL_PASSWORD=Wint3rIsHere\n"),
    ("app.config", f'<configuration><appSettings><add key="ApiKey" value="{GENERATED}" /></appSettings>'
                   "</configuration>"),
    # a key's own name still says secret under a location's section, and a random value is no file's name
    ("compose.yaml", f"secrets:\n  db:\n    password: {GENERATED}\n"),
    ("a.json", f'{{"Path": "{GENERATED}/Xk9Lm2Qp8Rt5Vw"}}'),
])
def test_a_settings_secret_is_still_redacted(name, text):
    body = _body(name, text)
    assert GENERATED not in body and "Wint3rIsHere" not in body and "hunter2" not in body and REDACTED in body, body


@pytest.mark.parametrize("path, value", [
    (("secrets", "0"), GENERATED),  # one word, no separator: no secret's name
    (("secretKeyRef", "password"), GENERATED),  # a reference's key is a name, another child is not
    (("Config", "Env", "0"), f"API_TOKEN={GENERATED}"),
])
def test_the_names_rules_stop_where_a_secret_may_be(path, value):
    assert GENERATED not in redact_value(path, value)


def test_an_ini_files_long_continued_value_is_read_once():
    """A test matrix's `deps =` of 6,000 continuation lines: each line re-read the value so far (the square of the
    run) and the file passed the sandbox's CPU limit into plain windows; it is the config chunker's now."""
    lines = ["[testenv]", "deps ="] + [f"    py3.{i % 9}-lib{i}-v1.{i}: lib{i}=={i}.0.{i % 7}" for i in range(6000)]
    data = ("\n".join(lines) + "\n").encode()
    result = chunk_file_guarded("tox.ini", data)
    assert not result.notes, result.notes
    assert result.pieces[0].chunk_type == "config"
    assert "lib5999==5999.0" in "\n".join(p.body for p in result.pieces)



def test_an_env_files_quoted_value_runs_over_lines():
    """A quoted value runs to its closing quote, each line looked at once for it (the value so far was searched
    again at each line), and the key after it is read."""
    body = _body("app.env", 'NOTE="first line\nsecond line"\nAPP=shop\n')
    assert "NOTE = first line\\nsecond line" in body and "APP = shop" in body, body
