"""Eighty-third round: Harbor, Ory Oathkeeper, zitadel's oidc (real code) and OWASP iGoat-Swift read held out after the
eighty-second round (figures: benchmarks/secrets_recall.md, round 83). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # a flag toggled on an ini-shaped line
    "      showConfirmPwd = !showConfirmPwd",
    "    showConfirmSecret = !showConfirmSecret",
    # ... and quoted, a value judged by its look
    '    showConfirmPwd: "!showConfirmPwd"',
    # the hash's version, said by its name's last word
    '\tPasswordVersion: "sha256",',
    # an instruction after `please`, a denial
    'cookie_secret = "PLEASE-CHANGE-ME-I-AM-VERY-INSECURE"',
    'secretKey: "not-a-secure-key"',
]


REDACTED_CASES = [
    # `!` before a password, or before another name
    ("password = !hunter2", "hunter2"),
    ("showPwd = !showPwdX", "showPwdX"),
    ("password = '!hunter2'", "hunter2"),
    ('showPwd: "!showPwdX"', "showPwdX"),
    # a generated version, a generated run after `please`, digits in a denial's words
    (f'passwordVersion = "{GENERATED}"', GENERATED),
    (f'secret = "please_{GENERATED}"', GENERATED),
    ('secretKey: "not-a-s3cure-key"', "not-a-s3cure-key"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_secret_volume_s_items_name_keys_and_an_instruction_is_no_secret():
    text = ("spec:\n  volumes:\n    - secret:\n        secretName: registry\n        items:\n"
            "          - key: REGISTRY_HTPASSWD\n            path: passwd\n"
            "secrets:\n  cookie:\n    - PLEASE-CHANGE-ME-I-AM-VERY-INSECURE\n"
            f"  system:\n    - {GENERATED}\n")
    body = bodies("oathkeeper.yml", text)
    assert "REGISTRY_HTPASSWD" in body and "PLEASE-CHANGE-ME-I-AM-VERY-INSECURE" in body
    assert GENERATED not in body
