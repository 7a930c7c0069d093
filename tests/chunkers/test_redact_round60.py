"""Sixtieth round: three more repositories' settings files (docker/awesome-compose, kubernetes/examples,
dotnet/aspire-samples), read with `secrets_recall.py --settings` after the fifty-ninth round and before this one
(figures: benchmarks/secrets_recall.md, round 60). Their look-alikes left, kept here; values made up where a secret
is meant."""

import pytest

from chunkers import chunk_file_result

GENERATED = "Zq8vK2pLm9Xc4Rt7wq"


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


@pytest.mark.parametrize("name, text, kept", [
    # a connection string that names a server and holds no credential
    ("appsettings.json", '{"ConnectionStrings": {"DefaultConnection": "Server=(localdb)\\\\mssqllocaldb;Database=aspnet-'
                         'App-25992a93-c312-43dc-9f14-2bdb8daf90c3;Trusted_Connection=True;MultipleActiveResultSets=true"}}',
     "Trusted_Connection=True"),
    ("appsettings.json", '{"ConnectionStrings": {"catalogdb": "Server=localhost;Port=5432;Database=NOT_A_REAL_DB"}}',
     "Database=NOT_A_REAL_DB"),
    # format holes only, a package's name and its version range
    ("manifest.json", '{"resources": {"cache": {"connectionString": "{cache.bindings.tcp.host}:{cache.bindings.tcp.port}"}}}',
     "{cache.bindings.tcp.host}:{cache.bindings.tcp.port}"),
    ("package-lock.json", '{"packages": {"node_modules/@inquirer/prompts": {"dependencies": {"@inquirer/password": '
                          '"^4.0.21"}}}}', "= ^4.0.21"),
    # a password read from Compose's secret file, `$` escaped as Compose wants (`$$(cat …)`)
    ("compose.yaml", "services:\n  db:\n    healthcheck:\n      test: ['CMD-SHELL', 'mysqladmin ping -h 127.0.0.1 "
                     "--password=\"$$(cat /run/secrets/db-password)\" --silent']\n", "$$(cat /run/secrets/db-password)"),
    # Kubernetes: a secret volume's name, a secret's namespace, a selector's label key
    ("deploy.yaml", "spec:\n  volumes:\n    - secret:\n        secretName: nginxsecret\n", "secretName = nginxsecret"),
    ("class.yaml", "parameters:\n  adminSecretNamespace: kube-system\n", "adminSecretNamespace = kube-system"),
    ("deploy.yaml", "affinity:\n  matchExpressions:\n    - key: app\n      operator: In\n      values: [cassandra]\n",
     "key = app"),
])
def test_a_settings_look_alike_is_kept(name, text, kept):
    body = _body(name, text)
    assert kept in body and "[REDACTED]" not in body, body


@pytest.mark.parametrize("name, text", [
    ("appsettings.json", '{"ConnectionStrings": {"Db": "Server=localhost;Database=app;User Id=sa;Password=Wint3rIsHere;'
                         'TrustServerCertificate=True"}}'),
    ("appsettings.json", f'{{"ConnectionStrings": {{"Storage": "DefaultEndpointsProtocol=https;AccountName=acct;'
                         f'AccountKey={GENERATED}==;EndpointSuffix=core.windows.net"}}}}'),
    ("appsettings.json", f'{{"ConnectionStrings": {{"Bus": "Endpoint=sb://x.servicebus.windows.net/;'
                         f'SharedAccessKeyName=Root;SharedAccessKey={GENERATED}="}}}}'),
    ("appsettings.json", '{"ConnectionStrings": {"Cache": "redis:6379,password=Wint3rIsHere"}}'),
    ("appsettings.json", f'{{"ConnectionStrings": {{"Db": "Server=db;Database=app;Options={GENERATED}"}}}}'),
    ("compose.yaml", "secrets:\n  db:\n    password: Wint3rIsHere\n"),
    ("deploy.yaml", "secret:\n  token: Wint3rIsHere\n"),
    # an XML attribute's name begins with `@` in the key path: no package's name
    ("app.config", f'<configuration><db password="Wint3rIsHere" apiKey="{GENERATED}" /></configuration>'),
    ("appsettings.json", '{"ConnectionStrings": {"Db": "Server=db;Database=app;Pwd=yes"}}'),
])
def test_a_settings_secret_is_still_redacted(name, text):
    body = _body(name, text)
    assert GENERATED not in body and "Wint3rIsHere" not in body and "[REDACTED]" in body, body
