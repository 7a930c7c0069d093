"""Syntax rules added in issue 33's fourth round, after Nosey Parker's rule examples (a
development corpus since then, benchmarks/secrets_recall.py): each family with a positive (a
fake secret, redacted) and a look-alike beside it (kept). The provider forms of that round are
rows of chunkers/secret_rules.py with their examples in tests/fixtures/secrets/rules/examples.json."""

from __future__ import annotations

import pytest

from chunkers.redact import REDACTED, redact_text, redact_value

# (family, line, the secret it plants)
POSITIVES = [
    # a `.env` line under an environment variable's `_PASS` name, also commented out
    ("dotenv_pass", "REACT_APP_ADMIN_PASS=quietmoth7", "quietmoth7"),
    ("dotenv_pass", "# SMTP_PASS=Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("dotenv_pass", "#REACT_APP_GUEST_PASSWORD=lemon!tree9", "lemon!tree9"),
    # WireGuard's pre-shared key
    ("preshared_key", "PresharedKey = q7Lr0sXw2mZcV9bNf4Hk1tYe8uJa3dPg6iOs5RlW0cE=",
     "q7Lr0sXw2mZcV9bNf4Hk1tYe8uJa3dPg6iOs5RlW0cE="),
    # URL credentials: a password holding `@`, every host of a multi-host URI
    ("url_cred", "mongodb+srv://app:sun@flower42!@cluster0.example.mongodb.net/db", "flower42!"),
    ("url_cred", "postgresql://app:Qw9rT2yU@db1:5432,app:Zx8cV7bN@db2:5432/app", "Zx8cV7bN"),
    # a header given with `--header=`
    ("header_flag", "wget --header='X-Api-Token: 7f3a9c2e-51b4-4d8e-9a6f-0b2c4e6d8f1a' https://x",
     "7f3a9c2e-51b4-4d8e-9a6f-0b2c4e6d8f1a"),
    # an Azure storage key on its own line of a connection string split over lines
    ("account_key_line", "AccountKey=Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xtbm9w==;",
     "Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTBhYmNkZWZnaGlqa2xtbm9w"),
    # a real value beside each look-alike below: an assignment that is no concatenation, a password of words
    # with a digit, a value under a password's name that is neither a path nor a selector
    ("concatenation", 'String masterUserPassword = "Kp9!vLq2zR";', "Kp9!vLq2zR"),
    ("encoding_arg", 'System.setProperty("db.password", "q8Zt2LmX9vRw4KpY");', "q8Zt2LmX9vRw4KpY"),
    ("word_path", 'password = "/Xk9fQ2/zzP8"', "/Xk9fQ2/zzP8"),
    ("selector", 'this.adminPassword = "#Xk9fQ2zz";', "#Xk9fQ2zz"),
    ("reference", "RESET_PASSWORD=Zq9vL2mX7wR4/account", "Zq9vL2mX7wR4"),
    ("doc_sample", '"PreSharedKey": "Wq7zR2vL9xK4mP8t"', "Wq7zR2vL9xK4mP8t"),
    ("conn_placeholder", "Endpoint=https://x.example.test;Id=abc1;Secret=Zq9vL2mX7wR4kP8y --label y",
     "Zq9vL2mX7wR4kP8y"),
]

# (family, line): kept as it is
NEGATIVES = [
    ("dotenv_pass", "REACT_APP_MAILER_PASSWORD=smtp_password # your SMTP password"),
    ("dotenv_pass", "# SKIP_PASS=1"),
    ("dotenv_pass", "FIRST_PASS=true"),
    ("preshared_key", "PresharedKey = [shared secret goes here]"),
    ("url_cred", "see https://app@example.test:8080/a@b:c@d for the link"),
    ("url_cred", "postgresql://db1:5432,db2:5432/app?user=app"),
    ("header_flag", "wget --header='X-Api-Token: $API_TOKEN' https://x"),
    ("account_key_line", "AccountKey=<storage account key>;"),
    # a string that ends in a secret's name, then concatenated with code
    ("concatenation", 'sb.append("MasterUserPassword: " + getMasterUserPassword() + ",");'),
    ("concatenation", '"//localhost:4873/:_password = "+new Buffer("x").toString("base64")'),
    ("concatenation", "echo 'password = '.$cfg['db']['password'].\"\\n\";"),
    # an encoding's name given to a call beside a secret-named string
    ("encoding_arg", 'let accountKey = Buffer.from("accountKey", "base64");'),
    # a path, a route target, an ARN, a CSS selector under a password's name
    ("word_path", '"/docs/3.0/account/creating-a-strong-password": "/docs/server@3.0/auth"'),
    ("word_path", "  put '/forgot-password' => \"accounts/passwords#update\", as: 'update_password'"),
    ("word_path", 'AllowChangePassword = "arn:aws:iam::aws:policy/IAMUserChangePassword"'),
    ("selector", 'this.resetPassword = "#reset-password";'),
    ("selector", "this.resetPassword = '.reset-password-form';"),
    # a variable with a path after it, a variable in shell quotes, an HTML-escaped placeholder
    ("reference", "RESET_PASSWORD=$BASE_URL/account/#/reset_password"),
    ("reference", "- echo 'export DB_PASSWORD=\"'$CI_DB_PASSWORD'\"' >> .env"),
    ("reference", '"password": "&lt;YOUR_PASSWORD&gt;"'),
    # a documentation's sample of the field (seen in awscli's examples once PresharedKey became a secret's name)
    ("doc_sample", '"PreSharedKey": "ExamplePreSharedKey1"'),
    ("doc_sample", "api_token: sample-api-token"),
    # a connection string's placeholders: in brackets, `xxx`, given whole to a flag
    ("conn_placeholder", "SharedAccessKeyName=[key name goes here];SharedAccessKey=[key goes here];"),
    ("conn_placeholder", "az appconfig kv list --connection-string Endpoint=https://x.example.test;Id=xxx;Secret=xxx"
                         " --label y"),
]


@pytest.mark.parametrize("family, line, secret", POSITIVES, ids=[f"{p[0]}-{i}" for i, p in enumerate(POSITIVES)])
def test_a_secret_is_redacted(family, line, secret):
    out = redact_text(line)
    assert secret not in out and REDACTED in out, (family, out)
    assert redact_text(out) == out


@pytest.mark.parametrize("family, line", NEGATIVES, ids=[f"{n[0]}-{i}" for i, n in enumerate(NEGATIVES)])
def test_a_look_alike_is_kept(family, line):
    assert redact_text(line) == line


def test_every_family_has_a_positive_and_a_look_alike():
    assert {p[0] for p in POSITIVES} == {n[0] for n in NEGATIVES}


def test_parsed_settings_keep_a_path_and_a_selector():
    # the config chunkers' path: a route or a selector under a password's name is no secret
    assert redact_value(("routes", "reset_password"), "/account/reset-password") != REDACTED
    assert redact_value(("ui", "password"), "#password-field") != REDACTED
    assert redact_value(("db", "password"), "Zq9vL2mX7wR4") == REDACTED
