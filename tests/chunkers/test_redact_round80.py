"""Eightieth round: Bitwarden's Android app, HashiCorp Boundary, wallabag and Pixelfed (real code) read held out after
the seventy-ninth round (figures: benchmarks/secrets_recall.md, round 80). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # an id's prefix, letters and digits
    '\tPasswordAuthMethodPrefix = "ampw"',
    '\tUsernamePasswordCredentialPrefix = "credup"',
    "    public const SCIM_SECRET_TOKEN_PREFIX = 'pb_';",
    # secrets' names in capitals joined by `-`, one or a list
    '          secrets: "UPLOAD-KEYSTORE-PASSWORD,UPLOAD-BETA-KEYSTORE-PASSWORD,PLAY-KEYSTORE-PASSWORD"',
    '          secrets: "CROWDIN-API-TOKEN"',
    # another language's word for the secret in a string resource
    '    <string name="master_password">Huvudlösenord</string>',
]


REDACTED_CASES = [
    # a password's own first letters, a generated prefix
    ('    [string]$PasswordPrefix = "p@ssw0rd00!",', "p@ssw0rd00!"),
    (f'_TOKEN_PREFIX = "{GENERATED}"', GENERATED),
    ('\tAdminPasswordPrefix = "Passw0rd2024"', "Passw0rd2024"),
    # capitals joined by `-` that name no secret's kind, a random run among them
    ('    password: "BLUE-HORSE"', "BLUE-HORSE"),
    ('          secrets: "CROWDIN-API-TOKEN,ZQ8VN3XL0PR7TY2WK5MB4CD-KEY"', "ZQ8VN3XL0PR7TY2WK5MB4CD"),
    # a generated value in a string resource
    (f'    <string name="api_key">{GENERATED}</string>', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_an_android_app_s_strings_for_a_locale_are_words():
    text = ('<resources>\n  <string name="master_password">Hoofwagwoord</string>\n'
            '  <string name="api_key">API-Schlüssel</string>\n'
            '  <string name="maps_key">AIzaSyA4Xkn0do7Ky_OLff2L_7MXeNK6s-JVgXz</string>\n</resources>\n')
    body = bodies("app/src/main/res/values-de-rDE/strings.xml", text)
    assert "Hoofwagwoord" in body and "API-Schlüssel" in body
    assert "AIzaSyA4Xkn0do7Ky_OLff2L_7MXeNK6s-JVgXz" not in body
    # the default strings are no translation: a key's name there keeps its value's judgement
    assert "Hoofwagwoord" not in bodies("app/src/main/res/values/strings.xml", text)


def test_an_action_on_a_password_is_no_section_of_passwords():
    body = bodies("limits.json", '{"limits": {"account": {"change-password": [{"per": "total", '
                  f'"resource": "account"}}]}}}}, "passwords": {{"per": "{GENERATED}"}}}}')
    assert '"total"' in body or "= total" in body
    assert GENERATED not in body
