"""Sixty-eighth round: Laravel's PHP, read held out with three more real repositories (sinatra, a Terraform module)
after the sixty-seventh round (figures: benchmarks/secrets_recall.md, round 68). Values made up where a secret is
meant."""

import pytest

from chunkers.redact import redact_text


@pytest.mark.parametrize("line", [
    # what serves or checks passwords, named for them (config/auth.php, ArgonHasher.php)
    "        'passwords' => env('AUTH_PASSWORD_BROKER', 'users'),",
    "        if (defined('PASSWORD_ARGON2_PROVIDER') && PASSWORD_ARGON2_PROVIDER === 'sodium') {",
    # a flag's name and `=` before a concatenation (DbCommand.php)
    "            'password' => '--password='.$connection['password'],",
    'cmd = "--password=" + getpass()',
    # a console command's signature: the colon before a flag's description (DownCommand.php)
    "    protected $signature = 'down {--with-secret : Generate a random secret phrase that may be used to bypass'",
])
def test_a_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("line, secret", [
    ("DB_PASSWORD = env('DB_PASSWORD', 'Sn0wfall2024')", "Sn0wfall2024"),
    ("PASSWORD_PROD = 'Sn0wfall2024'", "Sn0wfall2024"),
    ("'password' => '--password=Sn0wfall2024'", "Sn0wfall2024"),
    # a password of signs alone, or beginning with a dot or a plus, after a password's flag
    ("mysql --password '#$%^&*!'", "#$%^&*!"),
    ("mysql --password '.Sn0wfall'", "Sn0wfall"),
    ("mysql --password '+Sn0wfall'", "Sn0wfall"),
])
def test_a_secret_is_redacted(line, secret):
    out = redact_text(line)
    assert secret not in out and "[REDACTED]" in out, out
