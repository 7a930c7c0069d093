"""Sixty-second round: OWASP Juice Shop, an application with passwords planted on purpose and a user interface in
forty languages, read held out (`secrets_recall.py --settings` and `--changed-lines`) after the sixty-first round
and before this one (figures: benchmarks/secrets_recall.md, round 62). Its look-alikes kept, its planted secrets
still redacted; values made up where a secret is meant."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import redact_text

GENERATED = "Zq8vK2pLm9Xc4Rt7wq"


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


@pytest.mark.parametrize("name, text, kept", [
    # a translation file's keys name messages; its values are a user interface's words
    ("frontend/src/assets/i18n/de_DE.json", '{"LABEL_PASSWORD": "Passwort", "FORGOT_PASSWORD": "Passwort vergessen?"}',
     "LABEL_PASSWORD = Passwort"),
    ("frontend/src/assets/i18n/en.json", '{"LABEL_TWO_FACTOR_AUTH_TOKEN": "2FA Token"}', "= 2FA Token"),
    ("data/static/i18n/ja_JP.json", '{"Invalid email or password.": "メールアドレスかパスワードが正しくありません"}',
     "メールアドレスかパスワードが正しくありません"),
    ("zh_CN.json", '{"LABEL_PASSWORD": "密码"}', "LABEL_PASSWORD = 密码"),
    ("config/locales/fr.yml", "fr:\n  devise:\n    password: Mot de passe\n    secret_key: Clé\n", "password = Mot de passe"),
    ("src/main/resources/messages_de.properties", "login.password=Kennwort\n", "login:password = Kennwort"),
    ("Properties/Resources.de.resx", '<root><data name="Password"><value>Kennwort</value></data></root>',
     "value = Kennwort"),
    # a list item's bare `key`: a record's id (challenges, locales, users)
    ("data/static/challenges.yml", "- name: Password Hash Leak\n  key: passwordHashLeakChallenge\n",
     "key = passwordHashLeakChallenge"),
    ("data/static/locales.json", '[{"key": "en", "icons": ["gb", "us"], "lang": "English"}]', "0:key = en"),
])
def test_a_settings_look_alike_is_kept(name, text, kept):
    body = _body(name, text)
    assert kept in body and "[REDACTED]" not in body, body


@pytest.mark.parametrize("name, text", [
    # a secret's form in a translation file is still one
    ("frontend/src/assets/i18n/en.json", '{"EXAMPLE": "Use the key AKIAZQ8VK2PLM9XC4RT7 to sign in"}'),
    ("locales/en.yml", "en:\n  url: https://admin:Wint3rIsHere@db.example.com/app\n"),
    # not a translation file: a name with a locale's shape but no locale, a settings file beside them
    ("config/app-dev.json", '{"password": "Wint3rIsHere"}'),
    ("config/db.json", '{"LABEL_PASSWORD": "Wint3rIsHere"}'),
    # a list item's key that looks generated, a list named for keys, a planted user's password
    ("data/static/challenges.yml", f"- name: x\n  key: {GENERATED}\n"),
    ("keys.yml", "api_keys:\n  - key: abc12345\n"),
    ("data/static/users.yml", "- email: admin@juice-sh.op\n  password: 'Wint3rIsHere'\n  key: admin\n"),
])
def test_a_settings_secret_is_still_redacted(name, text):
    body = _body(name, text)
    assert GENERATED not in body and "Wint3rIsHere" not in body and "AKIAZQ8VK2PLM9XC4RT7" not in body, body
    assert "abc12345" not in body and "[REDACTED]" in body, body


@pytest.mark.parametrize("line", [
    # `date -u` prints UTC, in a format: no `curl -u user:password`
    'echo "BUILD_DATE=`date -u +”%Y-%m-%dT%H:%M:%SZ”`" >> $GITHUB_ENV',
    "BUILD_DATE=`date -u +%Y-%m-%dT%H:%M:%SZ`",
    # a template literal's expression cut at a quote inside it
    "query(`SELECT * FROM Users WHERE email = '${req.body.email || ''}' AND password = "
    "'${security.hash(req.body.password || '')}' AND deletedAt IS NULL`)",
    # an HTML template's bindings are expressions
    '<app-password-strength #passwordStrength [password]="password.value"></app-password-strength>',
    '<app-password-strength-info [passwordComponent]="passwordStrength"',
    # an Ethereum address is public
    "const BeeTokenAddress = '0x36435796Ca9be2bf150CE0dECc2D8Fab5C4d6E13'",
])
def test_a_free_text_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("line", [
    f"password = '{GENERATED}'",
    f'environ["API_KEY"] = "{GENERATED}"',
    'config[:password] = "Wint3rIsHere"',
    # an Ethereum private key: 64 hex digits; an API's token in an address's form, under a token's name
    "const privateKey = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'",
    'poly_address_api_token = "0x4c0883a69102937d6231471b5dbb6204fe512961"',
])
def test_a_free_text_secret_beside_them_is_redacted(line):
    out = redact_text(line)
    assert GENERATED not in out and "Wint3rIsHere" not in out and "4c0883a69102937d" not in out, out


def test_curl_user_and_password_is_still_redacted():
    out = redact_text("curl -u admin:Wint3rIsHere https://api.example.com")
    assert "Wint3rIsHere" not in out and "admin:[REDACTED]" in out, out
