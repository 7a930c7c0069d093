"""Redaction: no secret value of a config file reaches any field of any chunk;
the free-text pass redacts literals and leaves ordinary code alone."""

import json
from pathlib import Path

import pytest

from chunkers import chunk_file
from chunkers.redact import REDACTED, is_secret_key, redact_text, redact_value

FIXTURES = Path(__file__).parent.parent / "fixtures" / "config"

# Every secret planted in the config fixtures, by file.
SECRETS = {
    "appsettings.json": ["Tr0ub4dor&3", "ledger_app", "b7f1c9e2d4a6-jwt-signing", "sk_live_51HxQ2eL0ngStr1pe",
                         "Wh00kPa55"],
    "secrets.yaml": ["yaml-Db-Pa55word!", "yaml-url-pass-77", "yaml-queue-token-abc123"],
    "settings.toml": ["toml-client-secret-9f8e7d", "toml-worker-api-key-1"],
    "production.env": ["gsk_envSecretValue12345", "env-db-pass-4321", "env-session-secret-zz9"],
    "app.ini": ["ini_user", "ini-Conn-Pa55", "ini-plain-password"],
    "web.config": ["xml-storage-account-key==", "xml_user", "xml-Conn-Pa55"],
    "application.properties": ["props-db-password-1"],
    "broken.json": ["broken-json-secret-42"],
    "broken.yaml": ["broken-yaml-pass-7"],
}


def every_field(piece) -> str:
    return json.dumps(piece.to_dict(), ensure_ascii=False)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_no_secret_value_survives_in_any_chunk_field(name):
    data = (FIXTURES / name).read_bytes()
    for secret in SECRETS[name]:
        assert secret in data.decode(), f"fixture lost its secret {secret!r}"
    pieces = chunk_file(name, data)
    assert pieces
    dumped = "\n".join(every_field(p) for p in pieces)
    assert REDACTED in dumped
    for secret in SECRETS[name]:
        assert secret not in dumped, f"{secret!r} leaked from {name}"


def test_secret_keys_follow_the_spec_pattern():
    assert is_secret_key(("Jwt", "SigningKey"))
    assert is_secret_key(("ConnectionStrings", "Default"))  # a whole section of secrets
    assert is_secret_key(("ApiKeys", "0"))  # an array under a secret key
    assert not is_secret_key(("Logging", "LogLevel", "Default"))
    assert not is_secret_key(("Authentication", "TokenValidationParameters", "ValidateIssuer"))
    assert redact_value(("Db", "Password"), "hunter2") == REDACTED
    assert redact_value(("Db", "Url"), "mysql://root:hunter2@db/x") == f"mysql://{REDACTED}:{REDACTED}@db/x"


@pytest.mark.parametrize("line, expected", [
    ('apiKey = "abc123"', 'apiKey = "[REDACTED]"'),
    ('"ClientSecret": "s3cr3t",', '"ClientSecret": "[REDACTED]",'),
    ("options.ClientSecret = 'xyz';", "options.ClientSecret = '[REDACTED]';"),
    ("DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED]"),
    ("export API_TOKEN=abc", "export API_TOKEN=[REDACTED]"),
    ("  password: hunter2", "  password: [REDACTED]"),
    ("Server=tcp:db,1433;Database=x;User ID=sa;Password=p@ss=w0rd;Encrypt=true",
     "Server=tcp:db,1433;Database=x;User ID=[REDACTED];Password=[REDACTED];Encrypt=true"),
    ("Data Source=(localdb)\\X;Uid=bob;Pwd=pw1", "Data Source=(localdb)\\X;Uid=[REDACTED];Pwd=[REDACTED]"),
    ("postgres://admin:pa55@db:5432/x", "postgres://[REDACTED]:[REDACTED]@db:5432/x"),
    # a C# auto-property's initializer
    # (a body of twelve characters and more: `sk_live_51H` alone is the form's stub, kept since the fifty-first round)
    ('public string ApiKey { get; init; } = "sk_live_51HxQ2eL0ngS";', 'public string ApiKey { get; init; } = "[REDACTED]";'),
    ('internal static string SigningKey { get; private set; } = "k3y";',
     'internal static string SigningKey { get; private set; } = "[REDACTED]";'),
    # .NET app.config pairs, other attributes in between
    ('<add key="ApiKey" value="abc123" description="x"/>', '<add key="ApiKey" value="[REDACTED]" description="x"/>'),
    ("<setting name='StripeSecret' serializeAs='String' value='sk_live'/>",
     "<setting name='StripeSecret' serializeAs='String' value='[REDACTED]'/>"),
    # command-line flags, quoted or not, and an .npmrc credential
    ("dotnet nuget push a.nupkg --api-key oy2abc --source https://api.nuget.org/v3/index.json",
     "dotnet nuget push a.nupkg --api-key [REDACTED] --source https://api.nuget.org/v3/index.json"),
    ('twine upload --password "pypi-AgEI" dist/*', 'twine upload --password "[REDACTED]" dist/*'),
    ("mytool --client-secret=s3cr3t", "mytool --client-secret=[REDACTED]"),
    ("//registry.npmjs.org/:_authToken=npm_abc123", "//registry.npmjs.org/:_authToken=[REDACTED]"),
    # from the review: a name that only starts like a header's name, colon keys, value first,
    # a quote of the other kind inside, more key flags, PowerShell flags, spaces, line-start _auth
    ('public const string ApiKeyHeaderValue = "sk_live_abcQ2eL0ngStr";', 'public const string ApiKeyHeaderValue = "[REDACTED]";'),
    ('<add key="AzureAd:ClientSecret" value="s3cr3t"/>', '<add key="AzureAd:ClientSecret" value="[REDACTED]"/>'),
    ('<add value="abc123" key="ApiKey"/>', '<add value="[REDACTED]" key="ApiKey"/>'),
    ('<add key="ApiKey" value="ab\'c123"/>', '<add key="ApiKey" value="[REDACTED]"/>'),
    ("az storage blob upload --account-key abcDEF== -f x", "az storage blob upload --account-key [REDACTED] -f x"),
    ("s3cmd --secret_key=abc123 ls", "s3cmd --secret_key=[REDACTED] ls"),
    ("nuget push x.nupkg -ApiKey oy2abc -Source nuget.org", "nuget push x.nupkg -ApiKey [REDACTED] -Source nuget.org"),
    ("Publish-Module -Name X -NuGetApiKey oy2abc", "Publish-Module -Name X -NuGetApiKey [REDACTED]"),
    ('twine upload --password "hunter 2"', 'twine upload --password "[REDACTED]"'),
    ("_auth=Ym9iOnNlY3JldA==", "_auth=[REDACTED]"),
    ("echo '//r/:_authToken=npm_abc' > .npmrc", "echo '//r/:_authToken=[REDACTED]' > .npmrc"),
])
def test_free_text_redacts_literal_secrets(line, expected):
    assert redact_text(line) == expected
    assert redact_text(expected) == expected  # idempotent


@pytest.mark.parametrize("code", [
    "var key = dict[key];",
    "password = input()",
    "password = getpass.getpass()",
    "user = get_user();",
    "for (i=0; i<n; i++) {",
    "if password == \"x\":",
    "const secret = process.env.SECRET;",
    "self.api_key = api_key",
    "password: str",
    "password: string;",
    "token: Token",
    "max_tokens: \"100\"",
    'tokenizer = "bert"',
    'password = ""',
    "connect(user=u, password=pw)",
    "https://example.com/path?x=1",
    'public string ApiKeyName { get; init; } = "X-Api-Key";',
    "public string Password { get; set; } = string.Empty;",
    '<add key="Timeout" value="30"/>',
    '<add key="ApiKeyHeader" value="X-Api-Key"/>',
    'parser.add_argument("--password", help="the password")',
    "mytool --password-file /etc/pw --max-tokens 100",
    '<Exec Command="dotnet nuget push --api-key $(NuGetApiKey)" />',
    "gh auth login --with-token < token.txt",
    "tool --token $TOKEN --api-key %API_KEY%",
    "x = -token + 1",
    "Pass --token for a non-interactive login; the --password option is required",
    '<add key="ApiKey" value="$(ApiKey)"/>',
    '<add key="ApiKeyEnabled" value="true"/>',
    "Options: --token TEXT  the token to use; pass --password only once",
    "mytool --no-password build --show-token false",
    "y = -secret if f else 2",
    "f'//r/:_authToken={token}'",
    "        _password = string.Empty;",
    "_auth = auth",
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
])
def test_free_text_leaves_ordinary_code_alone(code):
    assert redact_text(code) == code


def test_code_files_keep_their_code_but_lose_literal_secrets():
    source = (
        "def connect(password):\n"
        "    key = cache[key]\n"
        '    API_TOKEN = "tok-live-123456"\n'
        "    return db.open(password=password)\n"
    )
    [piece] = chunk_file("conn.txt", source.encode())
    assert piece.text == source.rstrip("\n").replace("tok-live-123456", REDACTED)


def test_a_heading_that_holds_a_secret_flag_is_redacted_in_its_symbol_too():
    # A symbol name is redacted by the same rule as text: it needs an `=`, a `:` or a `-`.
    source = "# Release\n\n## Publish with --api-key oy2SECRETMD\n\nRun it from CI.\n"
    pieces = chunk_file("RELEASING.md", source.encode())
    names = [s.name for p in pieces for s in p.symbols]
    assert "Publish with --api-key [REDACTED]" in names
    assert not any("oy2SECRETMD" in repr(p) for p in pieces)


# ---- issue 33: secret-named values in every syntax the code chunkers read
@pytest.mark.parametrize("line, secret", [
    ('os.environ["API_KEY"] = "sk-live-abcdef123456"', "sk-live-abcdef123456"),
    ("ENV['GITHUB_TOKEN'] = 'ruby-env-token-12345'", "ruby-env-token-12345"),
    ("ENV['DEPLOY_TOKEN'] ||= 'ruby-default-tok-9'", "ruby-default-tok-9"),
    ("settings['db']['password'] = 's3cr3t-pw'", "s3cr3t-pw"),
    ("$config['db_password'] = 'Php-Pass-77';", "Php-Pass-77"),
    ("$db = ['password' => 'PhpArrPass-5'];", "PhpArrPass-5"),
    (":password => 'RubyPass42'", "RubyPass42"),
    ('os.putenv("SECRET", "putenv-secret-99")', "putenv-secret-99"),
    ('os.environ.setdefault("API_TOKEN", "dflt-token-31")', "dflt-token-31"),
    ('System.setProperty("javax.net.ssl.keyStorePassword", "Keystore-99");', "Keystore-99"),
    ('props.setProperty("password", "JavaProp-11");', "JavaProp-11"),
    ("define('DB_PASSWORD', 'wp-Define-55');", "wp-Define-55"),
    ('putenv("API_KEY=phpEnvKey123");', "phpEnvKey123"),
    ('os.Setenv("API_TOKEN", "go-env-token-77")', "go-env-token-77"),
    ('Environment.SetEnvironmentVariable("CLIENT_SECRET", "cs-env-88");', "cs-env-88"),
    ('#define API_SECRET "c-define-secret-4"', "c-define-secret-4"),
    ('      - "DB_PASSWORD=compose-pass-6"', "compose-pass-6"),
    # ini lines with blanks around `=` (client config files), spaces and phrases in the value
    ("password = hunter2 with spaces", "hunter2 with spaces"),
    ("password = correct horse battery staple", "correct horse battery staple"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9fake", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9fake"),
])
def test_secret_named_values_in_every_syntax(line, secret):
    out = redact_text(line)
    assert secret not in out and REDACTED in out
    assert redact_text(out) == out


@pytest.mark.parametrize("code", [
    'api_key = os.environ["API_KEY"]',  # the name of an environment variable, read
    'token = ENV.fetch("GITHUB_TOKEN")',
    'API_KEY_ENV = "OPENAI_API_KEY"',  # a constant naming the variable
    'x = os.environ.get("API_KEY", "")',
    'access_key = "AKIAIOSFODNN7EXAMPLE"',  # AWS's documented example ids
    'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
    "The example key AKIAIOSFODNN7EXAMPLE is not a key.",
    'EMPTY_TOKEN_HASH = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',  # a hash
    'TOKEN_SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
    "token = token or None",
    "password = None",
    "secret_key = SECRET_KEY",
    "token = 'abc' if x else 'def'",
    "password = value;",
    "_SECRET_FILE_MODE = 0o600",
    'tok = re.findall("token=([a-z0-9]+)", url)[0]',
    'ssh_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakePublicKeyForTests ci@example.com"',
    'parser.add_argument("--password", "-p", help="the password")',
    "mysql -h db -P3306 -u root app",  # -P is the port; -p alone prompts
    "mysql -u root -p app < dump.sql",
    "unzip -o bundle.zip -d /tmp/x",
    "password = see the vault entry",  # prose in an ini-shaped line
    "token = the value from the dashboard",
])
def test_look_alikes_in_code_are_kept(code):
    assert redact_text(code) == code


def _config_text(name: str, text: str) -> str:
    return "\n".join(p.text for p in chunk_file(name, text.encode()))


@pytest.mark.parametrize("name, text, kept", [
    ("app.yaml", "keywords: python\n", "keywords = python"),
    ("app.yaml", "primary_key: id\n", "primary_key = id"),
    ("app.yaml", "sort_key: created_at\n", "sort_key = created_at"),
    ("app.yaml", "keyboard_shortcut: ctrl+k\n", "keyboard_shortcut = ctrl+k"),
    ("app.yaml", "monkey_patch: enabled\n", "monkey_patch = enabled"),
    ("app.yaml", "cache_key: user-profile-v2\n", "cache_key = user-profile-v2"),
    ("app.yaml", "ssh_key: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDFakePublicKey ci@x\n",
     "ssh_key = ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDFakePublicKey ci@x"),
    ("tokens.json", '{"design_token": "color-primary-500", "tokenColor": "#ff0000"}', "design_token = color-primary-500"),
    ("tokens.json", '{"design_token": "color-primary-500", "tokenColor": "#ff0000"}', "tokenColor = #ff0000"),
    ("ingress.yaml", "kind: Ingress\nspec:\n  tls:\n    - secretName: my-tls\n", "secretName = my-tls"),
    ("pkg.json", '{"integrity": "sha512-Vb4bVxk5wXb7aFakeIntegrityHash00000000000000000000000000==" }',
     "sha512-Vb4bVxk5wXb7aFakeIntegrityHash00000000000000000000000000=="),
    ("lock.json", '{"lock_token": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}',
     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    (".env", "COMMIT=9fceb02d0ae598e95dc970b74767f19372d61af8\n", "9fceb02d0ae598e95dc970b74767f19372d61af8"),
    (".env", "BUILD_ID=20240101\nIMAGE=nginx:1.25\n", "IMAGE = nginx:1.25"),
    ("k8s.yaml", "kind: ConfigMap\ndata:\n  mode: fast\n", "data:mode = fast"),
])
def test_look_alikes_in_settings_are_kept(name, text, kept):
    assert kept in _config_text(name, text)


@pytest.mark.parametrize("name, text, secret", [
    ("app.yaml", "cache_key: Zx81kQpL0m2NvB7rT4yUq9\n", "Zx81kQpL0m2NvB7rT4yUq9"),  # a key-named random value
    (".env", "APP_SEED=Zk8vQ2pL9mW4xR7tB1nC6yH3\n", "Zk8vQ2pL9mW4xR7tB1nC6yH3"),  # high entropy, ordinary name
    (".env", "SIGNING_SALT=Tq93LmZx0Pw7Rk2Vb5Nc8Hy4\n", "Tq93LmZx0Pw7Rk2Vb5Nc8Hy4"),
    ("secret.yaml", "apiVersion: v1\nkind: Secret\ndata:\n  username: YWRtaW4=\n  config.json: eyJhdXRocyI6e319\n",
     "YWRtaW4="),
    ("secret.yaml", "apiVersion: v1\nkind: Secret\ndata:\n  username: YWRtaW4=\n  config.json: eyJhdXRocyI6e319\n",
     "eyJhdXRocyI6e319"),
    ("docs/k8s.md", "# Secret\n\n```yaml\nkind: Secret\ndata:\n  db-url: cG9zdGdyZXM6Ly9h\n```\n", "cG9zdGdyZXM6Ly9h"),
    (".my.cnf", "[client]\nuser = app\npassword = my secret pw 42\n", "my secret pw 42"),
    (".netrc", "machine api.example.com\n  login deploy\n  password FakeNetrc77x\n", "FakeNetrc77x"),
    (".pgpass", "db.example.com:5432:app:app_user:FakePgpass99\n", "FakePgpass99"),
])
def test_secrets_in_settings_and_credential_files(name, text, secret):
    pieces = chunk_file(name, text.encode())
    dumped = "\n".join(every_field(p) for p in pieces)
    assert secret not in dumped and REDACTED in dumped
