"""Eighty-first round: Ory Hydra, lldap, hanko (real code), the Damn Vulnerable NodeJS Application, DVWS and the
Vulnerable Flask App read held out after the eightieth round (figures: benchmarks/secrets_recall.md, round 81).
Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # a shell function's positional parameter, a command's output cut at a quote, the empty string written out
    '    local url="$1" admin_username="$2" admin_password="$3"',
    '      LLDAP_USER_PASSWORD="$(< "$password_file")" "$LLDAP_SET_PASSWORD_PATH" --base-url "$LLDAP_URL"',
    """    elif [[ "$password" != 'null' ]] && [[ "$password" != '""' ]]; then""",
    # a URL's user named for its service and the syntax's word for the password
    "# - LLDAP_DATABASE_URL=postgres://postgres-user:password@postgres-server/my-database",
    # an instruction to change the value
    '#jwt_secret = "REPLACE_WITH_RANDOM"',
    "      - LLDAP_JWT_SECRET=REPLACE_WITH_RANDOM",
    "JWT_SECRET=CHANGE_ME_TO_SOMETHING",
    # where a token is kept, said by its name's last word
    '  sessionTokenLocation: "cookie",',
    '    if (sessionTokenLocation !== "sessionStorage") {',
    # a glob of words
    '  PASSWORD_LOGIN: "**/password/login",',
    '  PASSWORD: "**/password",',
    # a message with a format's hole in a script beyond ASCII
    '    passwordRetryAfter: "{passwordRetryAfter}后重试",',
    '    passwordRetryAfter: "{passwordRetryAfter} এ আবার চেষ্টা করুন",',
    '    passwordFormatHint: "必须长在{minLength}和{maxLength}字符之间。",',
    # a prefix of words joined by `-`
    'var aadAccessTokenPrefix = "vc-nonce-at:" // nolint:gosec',
    # a key's first word before `_value`
    '  "private_metadata": {"private_key": "private_value"},',
    # words joined by `-`, an acronym among them, in a phrase
    '    otpSecretKey: "Geheime OTP-sleutel",',
]


REDACTED_CASES = [
    # a password that begins with `$` and a digit
    ('password="$3cr3tV4lue"', "$3cr3tV4lue"),
    # a real password under a service's user; the syntax's user with a real password
    ('url = "postgres://postgres-user:s3cretPw@postgres-server/db"', "s3cretPw"),
    ('url = "mysql://db_user:hunter2@db/x"', "hunter2"),
    # an instruction's words run into a generated value
    (f"JWT_SECRET=CHANGEME_{GENERATED}", GENERATED),
    ('secret = "replace_with_s3cr3t"', "replace_with_s3cr3t"),
    # a generated value where a token is kept, or after `**/`
    (f'sessionTokenLocation: "{GENERATED}"', GENERATED),
    (f'token = "**/{GENERATED}"', GENERATED),
    # a hole before ASCII letters and digits
    ('password = "{pw}Zq8vK2pL9"', "Zq8vK2pL9"),
    # a prefix of letters and digits mixed, a password quoted inside quotes
    ('tokenPrefix = "Zq8vK2pL9x-Yt7W"', "Zq8vK2pL9x-Yt7W"),
    ("password = '\"hunter2\"'", "hunter2"),
    (f'"private_key": "private_value_{GENERATED}"', GENERATED),
    # a part of one letter; a capitalised word's suffix beside a password quoted in a hint (juice-shop's Azerbaijani)
    ('password = "blue-horse staple-x"', "blue-horse staple-x"),
    ('  "Bender password": "Bender-in şifrəsini SQL İnyeksiya və ya \\"Şifrəni Unutdum\\" istifadə etmədən '
     '<i>slurmCl4ssic</i> olaraq dəyişdirin.",', "slurmCl4ssic"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_password_method_s_settings_and_hooks_are_no_passwords():
    text = ("password:\n  enabled: true\n  acquire_on_registration: always\n  value: hunter2x\n"
            "selfservice:\n  flows:\n    registration:\n      after:\n        password:\n          hooks:\n"
            "            - hook: session\n            - hook: web_hook\n              config:\n"
            f"                method: POST\n                auth:\n                  config:\n"
            f"                    password: {GENERATED}\n"
            "credentials:\n  password:\n    identifiers:\n      - user@example.com\n"
            "secrets:\n  api: mypassword\n")
    body = bodies("kratos.yml", text)
    assert "always" in body and "session" in body and "web_hook" in body and "POST" in body
    assert "user@example.com" in body
    # a value under a password section's holder, a password in a hook's config, a section of secrets: redacted
    assert "hunter2x" not in body and GENERATED not in body and "mypassword" not in body
